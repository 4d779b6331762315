# Red team round 21, chapter 04 (positional encodings): four kinds of student (blind).
# variant-confuser students (blind).
CORRECT = {}
CORRECT["table_halves"] = '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    stretched = base * scale ** (d_model / (d_model - 2))
    i = torch.arange(d_model // 2, dtype=torch.float64)
    freqs = stretched ** (-2.0 * i / d_model)
    angles = positions.to(torch.float64).unsqueeze(-1) * freqs
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''
CORRECT["alibi_block"] = '''
def alibi_block(num_heads, t, offset):
    h = torch.arange(num_heads, dtype=torch.float64)
    slopes = 2.0 ** (-8.0 * (h + 1) / num_heads)
    q_pos = offset + torch.arange(t, dtype=torch.int64)
    k_pos = torch.arange(offset + t, dtype=torch.int64)
    dist = (q_pos[:, None] - k_pos[None, :]).abs()
    bias = (-slopes[:, None, None] * dist.to(torch.float64)).to(torch.float32)
    allowed = k_pos[None, :] <= q_pos[:, None]
    return (bias, allowed)
'''
CORRECT["reach"] = '''
alibi_reach = 256.0 * math.log(1000.0)
'''
CORRECT["position"] = '''
def position_from_encoding(row):
    d = row.shape[-1]
    i = d // 2 - 1
    omega = 10000.0 ** (-2.0 * i / d)
    s, c = float(row[2 * i]), float(row[2 * i + 1])
    angle = math.atan2(s, c) % (2 * math.pi)
    return int(round(angle / omega))
'''
CORRECT["rotate_half"] = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("rotary_dim must be even and 2 <= rotary_dim <= Dh")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    pos = torch.arange(t, dtype=torch.int64)[None, :] - (t - lengths.to(torch.int64))[:, None]   # (B, T)
    pos = pos.clamp(min=0).to(torch.float64)
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos[:, None, :, None] * theta                                       # (B, 1, T, R/2)
    wide = torch.promote_types(x.dtype, torch.float32) if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    cos, sin = ang.cos().to(wide), ang.sin().to(wide)
    x1, x2, rest = x[..., :half].to(wide), x[..., half:rotary_dim].to(wide), x[..., rotary_dim:]
    r1 = x1 * cos - x2 * sin
    r2 = x1 * sin + x2 * cos
    return torch.cat([r1.to(x.dtype), r2.to(x.dtype), rest], dim=-1)
'''
CORRECT["mc"] = '''
answer_cache = "b"
'''
CORRECT["shift"] = '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    i = torch.arange(half, dtype=torch.float64)
    freqs = base ** (-2.0 * i / d_model)
    ang = offset * freqs
    c, s = ang.cos(), ang.sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    idx = torch.arange(half)
    m[idx, idx] = c
    m[idx + half, idx + half] = c
    m[idx + half, idx] = s
    m[idx, idx + half] = -s
    return m
'''
CORRECT["equivariance"] = '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst = 0.0
    t = x.shape[1]
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm])
        b = layer(x)[:, perm]
        gap = (a.to(torch.float64) - b.to(torch.float64)).abs().max().item()
        worst = max(worst, gap)
    return (bool(worst <= tol), float(worst))
'''

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

def rep(gid, *pairs):
    code = CORRECT[gid]
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in code, (gid, old)
        code = code.replace(old, new)
    return {gid: code}

SUBMISSIONS = []
SUBMISSIONS.append(sub("C00-model", True, dict(CORRECT), "my own answers"))

# ---------------- order-of-operations student ----------------
SUBMISSIONS.append(sub("W-O1-table-cast-before-sin", False, rep("table_halves",
    "return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)",
    "angles = angles.to(dtype)                     # the table's dtype, then the functions\n    return torch.cat([angles.sin(), angles.cos()], dim=-1)"),
    "casts the float64 angles to dtype before sin/cos; breaks 'Computing the angles in float64 and converting at the end meets both; computing them in float32 does not'"))

SUBMISSIONS.append(sub("W-O2-rope-pad-count-in-lengths-dtype", False, rep("rotate_half",
    "pos = torch.arange(t, dtype=torch.int64)[None, :] - (t - lengths.to(torch.int64))[:, None]",
    "pos = torch.arange(t, dtype=torch.int64)[None, :] - (t - lengths).to(torch.int64)[:, None]   # pad count, then widen"),
    "computes T - lengths in the lengths' dtype and widens after (uint8/int8 wrap for T past their range); breaks 'arithmetic in that dtype, and a Python int combined with such a tensor, wrap around'"))

SUBMISSIONS.append(sub("W-O3-equiv-cast-after-subtract", False, rep("equivariance",
    "gap = (a.to(torch.float64) - b.to(torch.float64)).abs().max().item()",
    "gap = (a - b).to(torch.float64).abs().max().item()"),
    "subtracts in the output dtype, widens after; breaks 'the outputs may be float16 or bfloat16, where a difference rounds ... so take the differences in float64'"))

SUBMISSIONS.append(sub("W-O4-equiv-verdict-before-update", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst = 0.0
    equivariant = True
    t = x.shape[1]
    for _ in range(trials):
        equivariant = equivariant and worst <= tol        # verdict on what was seen so far
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    return (bool(equivariant), float(worst))
'''}, "updates the verdict before the running maximum includes the current trial: the last trial's gap never reaches `equivariant`; breaks '`equivariant` ... True exactly when worst <= tol'"))

# ---------------- vectorising student ----------------
SUBMISSIONS.append(sub("W-V1-alibi-cdist", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float32) / num_heads)
    q_pos = torch.arange(offset, offset + t, dtype=torch.float32)
    k_pos = torch.arange(0, offset + t, dtype=torch.float32)
    dist = torch.cdist(q_pos[:, None], k_pos[:, None])                 # |i - j| for every pair at once
    bias = -slopes[:, None, None] * dist
    allowed = torch.arange(offset + t)[None, :] <= torch.arange(offset, offset + t)[:, None]
    return (bias, allowed)
'''}, "torch.cdist for the distance table (its matmul path computes x^2 - 2xy + y^2 in float32, inexact at large offsets); breaks 'Distances and the mask must be exact' and 'bias is within the rounding of float32 of the exact values'"))

SUBMISSIONS.append(sub("W-V2-equiv-one-batched-call", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    b, t = x.shape[0], x.shape[1]
    perms = [torch.randperm(t, generator=generator) for _ in range(trials)]
    permuted = torch.cat([x[:, p] for p in perms], dim=0)              # all trials in one batch
    out_perm = layer(permuted).to(torch.float64)
    out = layer(x).to(torch.float64)
    ref = torch.cat([out[:, p] for p in perms], dim=0)
    gaps = (out_perm - ref).abs().reshape(trials, -1).amax(dim=1)
    worst = float(gaps.max())
    return (worst <= tol, worst)
'''}, "one batched layer call for all trials and one unpermuted call; breaks 'Call the layer for every permutation drawn, the identity too' (a dropout layer in training mode, a layer that mixes the batch)"))

SUBMISSIONS.append(sub("W-V3-table-outer-reshape-empty", False, rep("table_halves",
    "angles = positions.to(torch.float64).unsqueeze(-1) * freqs",
    "angles = torch.outer(positions.reshape(-1).to(torch.float64), freqs).reshape(*positions.shape, -1)"),
    "torch.outer on the flattened positions then reshape with -1: cannot infer the size for an empty positions tensor; breaks 'an empty positions gives an empty table'"))

# ---------------- signature-and-defaults student ----------------
SUBMISSIONS.append(sub("W-S1-table-scale-before-base", False, {"table_halves": CORRECT["table_halves"].replace(
    "def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):",
    "def sinusoidal_table_halves(positions, d_model, scale=1.0, base=10000.0, dtype=torch.float32):")},
    "scale before base in the signature: a positional call puts the base into scale; breaks 'Keep the signatures of the stubs ... the hidden tests pass the optional arguments (base, scale, dtype, tol) by position'"))

SUBMISSIONS.append(sub("W-S2-equiv-default-tol", False, rep("equivariance",
    "def check_equivariance(layer, x, trials, generator, tol=1e-5):",
    "def check_equivariance(layer, x, trials, generator, tol=1e-6):"),
    "default tol 1e-6 where the stub says 1e-5; breaks the stub's signature (tol=1e-5)"))

SUBMISSIONS.append(sub("W-S3-equiv-tensor-worst", False, rep("equivariance",
    "gap = (a.to(torch.float64) - b.to(torch.float64)).abs().max().item()\n        worst = max(worst, gap)\n    return (bool(worst <= tol), float(worst))",
    "gap = (a.to(torch.float64) - b.to(torch.float64)).abs().max()\n        worst = torch.maximum(torch.as_tensor(worst, dtype=torch.float64), gap)\n    return (bool(worst <= tol), worst)"),
    "returns worst as a 0-d tensor; breaks 'worst a Python float'"))

SUBMISSIONS.append(sub("W-S4-position-float", False, rep("position",
    "return int(round(angle / omega))", "return torch.round(torch.tensor(angle / omega)).item()"),
    "returns a Python float (42.0); breaks 'Return p as a Python int'"))

SUBMISSIONS.append(sub("W-S5-reach-int", False, {"reach": "alibi_reach = round(256 * math.log(1000))  # a whole number of positions\n"},
    "an int; breaks 'a Python float, not an int nor a tensor'"))

SUBMISSIONS.append(sub("W-S6-rope-empty-before-validate", False, rep("rotate_half",
    "    dh = x.shape[-1]\n",
    "    dh = x.shape[-1]\n    if x.numel() == 0:\n        return x.clone()                 # nothing to rotate\n"),
    "returns early on an empty x before validating rotary_dim; breaks 'an empty batch or T = 0 with rotary_dim = 0 raises'"))

SUBMISSIONS.append(sub("W-S7-alibi-list", False, rep("alibi_block", "return (bias, allowed)", "return [bias, allowed]"),
    "returns a list; breaks 'returning (bias, allowed)' and the intro's 'a tuple, not a list'"))

SUBMISSIONS.append(sub("W-S8-shift-renamed-offset", False, rep("shift",
    "def shift_matrix_halves(offset, d_model, base=10000.0):", "def shift_matrix_halves(k, d_model, base=10000.0):\n    offset = k"),
    "renames offset to k (the lesson's M_k); breaks 'Keep the signatures of the stubs, argument names included'"))

# ---------------- variant-confuser student ----------------
SUBMISSIONS.append(sub("W-VC1-rope-interleaved-pairs", False, {"rotate_half": CORRECT["rotate_half"].replace(
    "x1, x2, rest = x[..., :half].to(wide), x[..., half:rotary_dim].to(wide), x[..., rotary_dim:]",
    "x1, x2, rest = x[..., 0:rotary_dim:2].to(wide), x[..., 1:rotary_dim:2].to(wide), x[..., rotary_dim:]").replace(
    "return torch.cat([r1.to(x.dtype), r2.to(x.dtype), rest], dim=-1)",
    "return torch.cat([torch.stack([r1, r2], dim=-1).flatten(-2).to(x.dtype), rest], dim=-1)")},
    "GPT-J's interleaved pairs (2i, 2i+1); breaks 'feature i is paired with feature i + R/2 (rotate half)'; visible R = 2"))

SUBMISSIONS.append(sub("W-VC2-rope-dh-exponent", False, rep("rotate_half",
    "theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)",
    "theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / dh)"),
    "the lesson's Dh in the exponent; breaks 'theta_i = base^{-2i/R} (R, not Dh, in the exponent)'"))

SUBMISSIONS.append(sub("W-VC3-alibi-lesson-rule", False, {"alibi_block": CORRECT["alibi_block"].replace('''    h = torch.arange(num_heads, dtype=torch.float64)
    slopes = 2.0 ** (-8.0 * (h + 1) / num_heads)
''', '''    def slopes_pow2(n):
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]
    if math.log2(num_heads).is_integer():
        s = slopes_pow2(num_heads)
    else:  # the paper's rule: closest power of two, then every other slope of twice as many
        c = 2 ** math.floor(math.log2(num_heads))
        s = slopes_pow2(c) + slopes_pow2(2 * c)[0::2][: num_heads - c]
    slopes = torch.tensor(s, dtype=torch.float64)
''')}, "the ALiBi paper's slopes for numbers of heads that are not a power of two; breaks 'Use this formula for every H (it is not the lesson's rule...)'"))

SUBMISSIONS.append(sub("W-VC4-reach-bits", False, {"reach": "alibi_reach = 256.0 * math.log2(1000.0)  # 2^-m per unit of distance\n"},
    "log2 (ALiBi's slopes are powers of two, but the softmax uses e); breaks 'attention weight ... 1000 times less' with softmax's exp"))

SUBMISSIONS.append(sub("W-VC5-mc-relative", False, {"mc": "answer_cache = 'a'\n"},
    "RoPE is relative, so...: the cached keys are already rotated at their absolute positions; breaks the setting of Part 6"))

SUBMISSIONS.append(sub("W-VC6-shift-interleaved-layout", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(d_model // 2):
        w = base ** (-2.0 * i / d_model)
        c, s = math.cos(offset * w), math.sin(offset * w)
        # the lesson's interleaved table: a 2x2 block on the diagonal per frequency
        m[2 * i, 2 * i], m[2 * i, 2 * i + 1] = c, -s
        m[2 * i + 1, 2 * i], m[2 * i + 1, 2 * i + 1] = s, c
    return m
'''}, "the lesson's interleaved block-diagonal matrix; breaks 'for the sines-first table of Part 1'; visible D = 2"))

SUBMISSIONS.append(sub("W-VC7-equiv-allclose-rtol", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst, equivariant = 0.0, True
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        a, b = layer(x[:, perm]).double(), layer(x)[:, perm].double()
        worst = max(worst, (a - b).abs().max().item())
        equivariant = equivariant and torch.allclose(a, b, atol=tol)     # torch's notion of "close"
    return (equivariant, float(worst))
'''}, "torch.allclose with its default rtol=1e-5 on top of atol; breaks 'tol is absolute, not relative to the size of the outputs' and 'True exactly when worst <= tol'"))

# ---------------- different-but-correct ----------------
SUBMISSIONS.append(sub("C01-table-log-space-keywords", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError(f"d_model must be even and >= 4, got {d_model}")
    half = d_model // 2
    i = torch.arange(half, dtype=torch.float64)
    # omega_i = base^(-2i/D) * scale^(-2i/(D-2)): the fastest stays 1, the slowest is divided by scale
    log_freq = -(2.0 * i / d_model) * math.log(base) - (2.0 * i / (d_model - 2)) * math.log(scale)
    freqs = torch.exp(log_freq)
    angles = positions.double()[..., None] * freqs
    table = torch.cat((torch.sin(angles), torch.cos(angles)), dim=-1)
    return table.to(dtype=dtype)
'''}, "frequencies in log space, the stretch as its own factor, .double() positions"))

SUBMISSIONS.append(sub("C02-alibi-float32-tril", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / num_heads) for h in range(num_heads)], dtype=torch.float32)
    s = offset + t
    rows = torch.arange(offset, s)                       # int64 query positions
    cols = torch.arange(s)
    dist = (rows.unsqueeze(1) - cols.unsqueeze(0)).abs().to(torch.float32)   # exact below 2^24
    bias = -(slopes.view(-1, 1, 1) * dist)
    allowed = torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
    return bias, allowed
'''}, "slopes in float32 (the text allows it), tril with diagonal offset on a (T, offset+T) block, a bare tuple"))

SUBMISSIONS.append(sub("C03-reach-from-part2", True, {"reach": '''
flattest = float(-alibi_block(8, 1, 1)[0][-1, 0, 0])     # the last head's bias at distance 1: its slope
alibi_reach = math.log(1000.0) / flattest
'''}, "reads the flattest slope from Part 2's alibi_block"))

SUBMISSIONS.append(sub("C04-position-torch-atan2", True, {"position": '''
def position_from_encoding(row):
    r = row.detach().to(torch.float64)
    d = r.numel()
    omega = 10000.0 ** (-(d - 2) / d)                    # the slowest pair, i = D/2 - 1
    angle = torch.remainder(torch.atan2(r[-2], r[-1]), 2 * math.pi)
    return int(torch.round(angle / omega).item())
'''}, "torch.atan2 and remainder in float64, the last pair by negative index"))

SUBMISSIONS.append(sub("C05-rope-hf-rotate-half", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    if rotary_dim % 2 != 0 or not (2 <= rotary_dim <= Dh):
        raise ValueError(f"bad rotary_dim {rotary_dim} for head width {Dh}")
    half = rotary_dim // 2
    inv_freq = 1.0 / (base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim))
    pad = T - lengths.long()                                          # (B,)
    pos = torch.arange(T).unsqueeze(0) - pad.unsqueeze(1)             # (B, T), int64
    pos = torch.where(pos < 0, torch.zeros_like(pos), pos)
    freqs = pos.double().unsqueeze(-1) * inv_freq                     # (B, T, R/2)
    emb = torch.cat((freqs, freqs), dim=-1)                           # (B, T, R)
    cos, sin = emb.cos()[:, None], emb.sin()[:, None]                 # (B, 1, T, R)
    rot, passthrough = x[..., :rotary_dim], x[..., rotary_dim:]
    wide = rot.to(torch.float64)
    rotated_half = torch.cat((-wide[..., half:], wide[..., :half]), dim=-1)
    rot_out = (wide * cos + rotated_half * sin).to(x.dtype)
    return torch.cat((rot_out, passthrough), dim=-1)
'''}, "Hugging Face's rotate_half idiom in float64, inv_freq from arange(0, R, 2)"))

SUBMISSIONS.append(sub("C06-rope-gather-table-where", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    Dh = x.shape[-1]
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > Dh:
        raise ValueError("rotary_dim must be even, at least 2 and at most Dh")
    B, H, T, _ = x.shape
    R2 = rotary_dim // 2
    theta = torch.pow(torch.tensor(base, dtype=torch.float64), -2.0 * torch.arange(R2, dtype=torch.float64) / rotary_dim)
    table = torch.arange(T, dtype=torch.float64)[:, None] * theta      # positions 0..T-1, (T, R/2)
    pad = (T - lengths.to(torch.int64)).view(B, 1)
    pos = (torch.arange(T).view(1, T) - pad).clamp(min=0)            # (B, T)
    cos, sin = table.cos()[pos].unsqueeze(1), table.sin()[pos].unsqueeze(1)   # (B, 1, T, R/2)
    x1, x2 = x[..., :R2], x[..., R2:rotary_dim]
    out1 = (x1 * cos - x2 * sin).to(x.dtype)
    out2 = (x1 * sin + x2 * cos).to(x.dtype)
    return torch.cat([out1, out2, x[..., rotary_dim:]], dim=-1)
'''}, "a (T, R/2) table of positions 0..T-1 per call, gathered with the clamped positions; arithmetic promoted to float64 by the table"))

SUBMISSIONS.append(sub("C07-shift-python-math-loop", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    m = torch.zeros((d_model, d_model), dtype=torch.float64)
    for i in range(half):
        w = base ** (-2 * i / d_model)
        c, s = math.cos(offset * w), math.sin(offset * w)
        # sin((p+k)w) = sin(pw) cos(kw) + cos(pw) sin(kw); cos((p+k)w) = cos(pw) cos(kw) - sin(pw) sin(kw)
        m[i, i] = c
        m[i + half, i] = s
        m[i, i + half] = -s
        m[i + half, i + half] = c
    return m
'''}, "a loop with Python floats and math.cos/math.sin"))

SUBMISSIONS.append(sub("C08-shift-from-part1-table", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    if d_model >= 4:
        row = sinusoidal_table_halves(torch.tensor([offset]), d_model, base=base, dtype=torch.float64)[0]
        s, c = row[:half], row[half:]                    # sin(k w_i), cos(k w_i)
    else:
        s = torch.tensor([math.sin(offset)], dtype=torch.float64)
        c = torch.tensor([math.cos(offset)], dtype=torch.float64)
    top = torch.cat([torch.diag(c), torch.diag(-s)], dim=1)
    bottom = torch.cat([torch.diag(s), torch.diag(c)], dim=1)
    return torch.cat([top, bottom], dim=0)
'''}, "takes sin(k w) and cos(k w) from Part 1's table at position k (scale 1), D = 2 by hand; blocks of diagonals"))

SUBMISSIONS.append(sub("C09-equiv-identity-first-amax", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    gaps = []
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        plain = layer(x)                                  # layer(x) first, then the permuted input
        permuted = layer(x[:, perm])
        diff = permuted.to(dtype=torch.float64) - plain[:, perm].to(dtype=torch.float64)
        gaps.append(float(torch.amax(torch.abs(diff))))
    worst = max(gaps)
    return worst <= tol, worst
'''}, "calls layer(x) before layer(x[:, perm]); amax; a list of gaps; a bare tuple"))

SUBMISSIONS.append(sub("C10-equiv-inverse-permutation", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst = 0.0
    T = x.shape[1]
    for trial in range(trials):
        perm = torch.randperm(T, generator=generator)
        inverse = torch.argsort(perm)
        with torch.no_grad():                              # no gradient is asked for
            out_perm = layer(x.index_select(1, perm)).double()
            out = layer(x).double()
        # un-permuting the permuted output gives the same set of differences (max over all entries)
        gap = (out_perm.index_select(1, inverse) - out).abs().max().item()
        worst = gap if gap > worst else worst
    return (bool(worst <= tol), float(worst))
'''}, "un-permutes the permuted output instead of permuting the plain one (the maximum over all entries is the same), index_select, no_grad"))

# ---------------- hostile ----------------
SUBMISSIONS.append(sub("H01-mc-str-equal-to-all", False, {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = str.__hash__

answer_cache = Letter("a")
'''}, "hostile: a str subclass equal to every letter"))

SUBMISSIONS.append(sub("H02-reach-float-equal-to-all", False, {"reach": '''
class Close(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
    def __abs__(self):
        return 0.0
    __hash__ = float.__hash__

alibi_reach = Close(1.0)
'''}, "hostile: a float subclass whose differences are 0"))

SUBMISSIONS.append(sub("H03-position-reads-caller", False, {"position": '''
import sys as system


def position_from_encoding(row):
    frame = system._getframe(1)
    while frame is not None:                             # the test knows the answer: find it
        for name in ("p", "position", "expected", "want", "pos"):
            value = frame.f_locals.get(name)
            if type(value) is int:
                return value
        frame = frame.f_back
    return 0
'''}, "hostile: reads the expected position from the caller's frames"))

# ---------------- second batch (still blind) ----------------
SUBMISSIONS.append(sub("W-S10-alibi-renamed-heads", False, {"alibi_block": CORRECT["alibi_block"].replace(
    "def alibi_block(num_heads, t, offset):", "def alibi_block(n_heads, t, offset):\n    num_heads = n_heads")},
    "renames num_heads to n_heads; breaks 'Keep the signatures of the stubs, argument names included'"))

SUBMISSIONS.append(sub("W-S11-equiv-renamed-trials", False, {"equivariance": CORRECT["equivariance"].replace(
    "def check_equivariance(layer, x, trials, generator, tol=1e-5):",
    "def check_equivariance(layer, x, n_trials, generator, tol=1e-5):\n    trials = n_trials")},
    "renames trials to n_trials; breaks 'Keep the signatures of the stubs, argument names included'"))

SUBMISSIONS.append(sub("W-S12-table-renamed-positions", False, {"table_halves": CORRECT["table_halves"].replace(
    "def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):",
    "def sinusoidal_table_halves(pos, d_model, base=10000.0, scale=1.0, dtype=torch.float32):\n    positions = pos")},
    "renames positions to pos; breaks 'Keep the signatures of the stubs, argument names included'"))

SUBMISSIONS.append(sub("W-S13-rope-base-positional-only", False, {"rotate_half": CORRECT["rotate_half"].replace(
    "def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):",
    "def rope_partial_left_padded(x, lengths, rotary_dim, *args, **kwargs):\n    base = args[0] if args else 10000.0   # options are read from args")},
    "an optional argument honoured only when passed positionally (base= lands in **kwargs, ignored); breaks 'the hidden tests pass the optional arguments (base, ...) by position and by name'"))
