BASE = {}
BASE["table_halves"] = '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    half = d_model // 2
    log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    freqs = torch.exp(-2.0 * torch.arange(half, dtype=torch.float64) / d_model * log_base)
    angles = positions.to(torch.float64)[..., None] * freqs
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''
BASE["alibi_block"] = '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    q = offset + torch.arange(t, dtype=torch.int64)
    k = torch.arange(offset + t, dtype=torch.int64)
    dist = (q[:, None] - k[None, :]).abs().to(torch.float64)
    bias = (-slopes[:, None, None] * dist).to(torch.float32)
    allowed = k[None, :] <= q[:, None]
    return (bias, allowed)
'''
BASE["reach"] = '''
alibi_reach = 256 * math.log(1000)
'''
BASE["position"] = '''
def position_from_encoding(row):
    row = row.to(torch.float64)
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(row[d - 2].item(), row[d - 1].item()) % (2 * math.pi)
    return int(round(angle / omega))
'''
BASE["rotate_half"] = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("bad rotary_dim")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    pos = torch.arange(t, dtype=torch.int64, device=x.device)[None, :] - (t - lengths.to(torch.int64))[:, None]
    pos = pos.clamp(min=0).to(torch.float64)
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64, device=x.device) / rotary_dim)
    ang = pos[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1 = x[..., :half].to(torch.float64)
    x2 = x[..., half:rotary_dim].to(torch.float64)
    o1 = (x1 * cos - x2 * sin).to(x.dtype)
    o2 = (x1 * sin + x2 * cos).to(x.dtype)
    return torch.cat([o1, o2, x[..., rotary_dim:]], dim=-1)
'''
BASE["mc"] = '''
answer_cache = "b"
'''
BASE["shift"] = '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    n = d_model // 2
    freqs = base ** (-2.0 * torch.arange(n, dtype=torch.float64) / d_model)
    ang = torch.tensor(float(offset), dtype=torch.float64) * freqs
    c, s = ang.cos(), ang.sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(n)
    m[i, i] = c
    m[n + i, n + i] = c
    m[n + i, i] = s
    m[i, n + i] = -s
    return m
'''
BASE["equivariance"] = '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm]).to(torch.float64)
        b = layer(x)[:, perm].to(torch.float64)
        worst = max(worst, (a - b).abs().max().item())
    return (bool(worst <= tol), float(worst))
'''

B = BASE
def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}
SUBMISSIONS = []
S = SUBMISSIONS.append

# ---------------- argument-ignorer ----------------
S(sub("ai-rope-base-ignored", False, {"rotate_half": B["rotate_half"].replace("theta = base **", "theta = 10000.0 **")},
  "Part 5: 'base any positive number', theta_i = base^(-2i/R): the default base is used whatever the caller passes."))
S(sub("ai-rope-Dh-in-exponent", False, {"rotate_half": B["rotate_half"].replace("/ rotary_dim)\n    ang", "/ dh)\n    ang")},
  "Part 5: 'theta_i = base^(-2i/R) ... (R, not Dh, in the exponent)': rotary_dim honoured in the slicing, Dh in the exponent (the visible R = 2 has only i = 0)."))
S(sub("ai-shift-base-ignored", False, {"shift": B["shift"].replace("freqs = base **", "freqs = 10000.0 **")},
  "Part 7: shift_matrix_halves(offset, d_model, base): base ignored (D = 2 has the single frequency 1 for every base)."))
S(sub("ai-equiv-tol-default", False, {"equivariance": B["equivariance"].replace("bool(worst <= tol)", "bool(worst <= 1e-5)")},
  "Part 8: 'equivariant ... True exactly when worst <= tol': the default tolerance is used whatever tol the caller passes."))
S(sub("ai-equiv-generator-first-draw-only", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    perm = torch.randperm(t, generator=generator)
    for trial in range(trials):
        if trial:
            perm = torch.randperm(t, generator=generator, device=x.device) if x.is_cuda else torch.randperm(t)
        a = layer(x[:, perm]).to(torch.float64)
        b = layer(x)[:, perm].to(torch.float64)
        worst = max(worst, (a - b).abs().max().item())
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'Draw trials permutations one after another, each with torch.randperm(T, generator=generator)': only the first draw uses the generator, the others draw from the global RNG."))
S(sub("ai-shift-offset0-identity-float32", False, {"shift": B["shift"].replace("    n = d_model // 2\n", "    if offset == 0:\n        return torch.eye(d_model)\n    n = d_model // 2\n", 1)},
  "Part 7: 'the (d_model, d_model) float64 matrix ... (offset 0 included)': the shortcut for offset 0 returns float32."))
# ---------------- chunker ----------------
S(sub("ch-rope-row-blocks-restart", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("bad rotary_dim")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    start = t - lengths.to(torch.int64)                   # (B,) first real row
    block = 4096
    outs = []
    for r0 in range(0, t, block):
        r1 = min(t, r0 + block)
        rows = torch.arange(r1 - r0, dtype=torch.int64)   # rows of this block
        pos = (rows[None, :] - start[:, None]).clamp(min=0).to(torch.float64)
        ang = pos[..., None] * theta
        cos, sin = ang.cos()[:, None], ang.sin()[:, None]
        xb = x[:, :, r0:r1]
        x1, x2 = xb[..., :half].double(), xb[..., half:rotary_dim].double()
        outs.append(torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), xb[..., rotary_dim:]], -1))
    if not outs:
        return x[:, :, :0].clone()
    return torch.cat(outs, dim=2)
'''}, "Part 5: 'Row t of sequence b has the position m = t - (T - lengths[b])': the row index restarts at 0 in every block of 4096 rows (the block's start is not added)."))
S(sub("ch-equiv-chunked-max-tail-dropped", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm]).reshape(-1)
        b = layer(x)[:, perm].reshape(-1)
        n = a.numel()
        size = min(4096, n)
        for s0 in range(0, n - size + 1, size):        # running maximum over chunks, to save memory
            gap = (a[s0:s0 + size].double() - b[s0:s0 + size].double()).abs().max().item()
            worst = max(worst, gap)
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'the largest absolute difference ... over all their entries': a last chunk shorter than 4096 entries is never looked at."))
S(sub("ch-table-chunks-correct", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    half = d_model // 2
    new_base = base * scale ** (d_model / (d_model - 2))
    freqs = new_base ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_model)
    flat = positions.reshape(-1)
    pieces = [torch.cat([(c.to(torch.float64)[:, None] * freqs).sin(), (c.to(torch.float64)[:, None] * freqs).cos()], -1)
              for c in flat.split(8192)]
    table = torch.cat(pieces) if pieces else torch.zeros(0, d_model, dtype=torch.float64)
    return table.reshape(*positions.shape, d_model).to(dtype)
'''}, "correct: positions in chunks of 8192, the last shorter one kept; empty input handled."))
S(sub("ch-alibi-row-loop-correct", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = [2.0 ** (-8.0 * (h + 1) / num_heads) for h in range(num_heads)]
    keys = torch.arange(offset + t, dtype=torch.int64)
    bias = torch.empty(num_heads, t, offset + t, dtype=torch.float32)
    allowed = torch.empty(t, offset + t, dtype=torch.bool)
    for i in range(t):                                  # one query row at a time
        dist = (offset + i - keys).abs().to(torch.float64)
        allowed[i] = keys <= offset + i
        for h in range(num_heads):
            bias[h, i] = (-slopes[h] * dist).to(torch.float32)
    return (bias, allowed)
'''}, "correct: a loop over query rows and heads (the text allows it)."))
# ---------------- leading dimensions ----------------
S(sub("ld-rope-flatten-repeat-order", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B_, H_, T_, Dh_ = x.shape
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > Dh_:
        raise ValueError("bad rotary_dim")
    half = rotary_dim // 2
    xf = x.reshape(B_ * H_, T_, Dh_)
    pos = torch.arange(T_, dtype=torch.int64)[None, :] - (T_ - lengths.to(torch.int64))[:, None]
    pos = pos.clamp(min=0).repeat(H_, 1).to(torch.float64)          # (B*H, T)
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos[..., None] * theta
    x1, x2 = xf[..., :half].double(), xf[..., half:rotary_dim].double()
    out = torch.cat([(x1 * ang.cos() - x2 * ang.sin()).to(x.dtype), (x1 * ang.sin() + x2 * ang.cos()).to(x.dtype),
                     xf[..., rotary_dim:]], dim=-1)
    return out.reshape(B_, H_, T_, Dh_)
'''}, "Part 5: the per-sequence positions are tiled with repeat (b-major per head block) where the flattened (B*H) order needs repeat_interleave: right when H = 1 or B = 1."))
S(sub("ld-table-flatten-restore", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    half = d_model // 2
    log_b = math.log(base) + math.log(scale) * d_model / (d_model - 2)
    freqs = torch.exp(torch.arange(half, dtype=torch.float64) * (-2.0 * log_b / d_model))
    ang = torch.outer(positions.flatten().double(), freqs)
    return torch.cat([ang.sin(), ang.cos()], dim=1).reshape(positions.shape + (d_model,)).to(dtype)
'''}, "correct: flatten any leading shape, outer product, restore with positions.shape."))
S(sub("ld-equiv-sizes-by-position", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    B_, T_, D_ = x.shape
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(T_, generator=generator)
        with torch.no_grad():
            gap = torch.dist(layer(x.index_select(1, perm)).double(), layer(x).index_select(1, perm).double(), p=float("inf"))
        worst = max(worst, float(gap))
    return (worst <= tol, worst)
'''}, "correct: rank fixed by the text; torch.dist with p=inf is the largest absolute difference; no_grad."))
# ---------------- special values ----------------
S(sub("sv-position-atan2-no-wrap", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(float(row[d - 2]), float(row[d - 1]))
    return int(round(angle / omega))
'''}, "Part 4: 'get its angle in [0, 2pi)': atan2's angle in (-pi, pi] is not wrapped, so positions whose slowest angle passes pi (D = 16, p > 9935) come back negative."))
S(sub("sv-equiv-diff-in-dtype", False, {"equivariance": B["equivariance"].replace(
    "a = layer(x[:, perm]).to(torch.float64)\n        b = layer(x)[:, perm].to(torch.float64)\n        worst = max(worst, (a - b).abs().max().item())",
    "a = layer(x[:, perm])\n        b = layer(x)[:, perm]\n        worst = max(worst, (a - b).abs().max().double().item())")},
  "Part 8: 'the outputs may be float16 or bfloat16, where a difference rounds ... so take the differences in float64'."))
S(sub("sv-alibi-float32-rows", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.exp2(-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float32) / num_heads)
    q = offset + torch.arange(t)
    k = torch.arange(offset + t)
    dist = (q[:, None] - k[None, :]).abs().float()      # exact: offset + T < 2**24
    bias = -(slopes[:, None, None] * dist)
    allowed = torch.ones(t, offset + t, dtype=torch.bool).tril(diagonal=offset)
    return (bias, allowed)
'''}, "correct: float32 distances are exact below 2^24; tril(diagonal=offset) is j <= offset + i."))
S(sub("sv-rope-polar-hypot", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("bad rotary_dim")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    pos = torch.arange(t, dtype=torch.int64)[None, :] - (t - lengths.to(torch.int64))[:, None]
    pos = pos.clamp(min=0).to(torch.float64)
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = (pos[..., None] * theta)[:, None]
    x1, x2 = x[..., :half].double(), x[..., half:rotary_dim].double()
    r = torch.hypot(x1, x2)                 # hypot does not overflow
    phi = torch.atan2(x2, x1) + ang
    return torch.cat([(r * phi.cos()).to(x.dtype), (r * phi.sin()).to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''}, "Part 5: 'rotate the pair as below, not through its length': polar form; a pair (0, 0) gets NaN gradients (hypot and atan2 at the origin), and digits go in phi + m*theta."))
# ---------------- rearranger ----------------
S(sub("ra-table-freqs-float32", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    new_base = base * scale ** (d_model / (d_model - 2))
    freqs = new_base ** (-torch.arange(0, d_model, 2) / d_model)        # the paper's formula
    angles = positions.to(torch.float64).unsqueeze(-1) * freqs.double()
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "Part 1: 'Computing the angles in float64 ... meets both; computing them in float32 does not': the frequencies come out float32 (int arange / int -> float32), off by ~1e-7 relative, which at positions of a few thousand is ~1e-3."))
S(sub("ra-alibi-difference-of-products", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float32) / num_heads)
    q = (offset + torch.arange(t)).float()
    k = torch.arange(offset + t).float()
    # slope * |q - k| = |slope*q - slope*k|: one product per position instead of one per pair
    bias = -(slopes[:, None, None] * q[None, :, None] - slopes[:, None, None] * k[None, None, :]).abs()
    allowed = k[None, :] <= q[:, None]
    return (bias, allowed)
'''}, "Part 2: 'bias is within the rounding of float32 of the exact values (a relative 1e-6)': m*q - m*k in float32 cancels: at offset 70 000 a distance of 1 is off by ~1%."))
S(sub("ra-alibi-difference-float64", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    q = (offset + torch.arange(t)).double()
    k = torch.arange(offset + t).double()
    bias = -(slopes[:, None, None] * q[None, :, None] - slopes[:, None, None] * k[None, None, :]).abs()
    allowed = torch.arange(offset + t)[None, :] <= (offset + torch.arange(t))[:, None]
    return (bias.float(), allowed)
'''}, "correct: the same rearrangement in float64 loses ~1e-12 absolute, far below float32's rounding."))
S(sub("ra-reach-log2", False, {"reach": "alibi_reach = 256.0 * math.log2(1000)"},
  "Part 3: attention weight is exp(score), so the ratio exp(-m d) = 1/1000 needs ln, not log2."))
S(sub("ra-rope-rotate-half-in-dtype", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 != 0 or not 2 <= rotary_dim <= dh:
        raise ValueError("rotary_dim must be even and between 2 and Dh")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    pos = torch.arange(t, dtype=torch.int64)[None, :] - (t - lengths.long())[:, None]
    pos = torch.where(pos < 0, torch.zeros_like(pos), pos).double()
    inv_freq = 1.0 / base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    freqs = pos[..., None] * inv_freq
    emb = torch.cat([freqs, freqs], dim=-1)[:, None]          # (B, 1, T, R)
    cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
    xr = x[..., :rotary_dim]
    rot = torch.cat([-xr[..., half:], xr[..., :half]], dim=-1)
    return torch.cat([xr * cos + rot * sin, x[..., rotary_dim:]], dim=-1)
'''}, "correct: Hugging Face's rotate_half, rotated in the dtype of x ('rotate in the dtype of x or wider')."))
S(sub("ra-shift-permuted-blockdiag", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    n = d_model // 2
    freqs = 1.0 / base ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    ang = offset * freqs
    blocks = [torch.stack([torch.stack([a.cos(), -a.sin()]), torch.stack([a.sin(), a.cos()])]) for a in ang]
    inter = torch.block_diag(*blocks)                   # the interleaved table's M_k
    order = torch.cat([torch.arange(0, d_model, 2), torch.arange(1, d_model, 2)])
    return inter[order][:, order].clone()
'''}, "correct: the interleaved block-diagonal matrix with rows and columns permuted to sines first."))
S(sub("ra-position-torch-float32", True, {"position": '''
def position_from_encoding(row):
    pair = row.reshape(-1, 2)[-1]                         # the slowest pair (sin, cos)
    d = row.numel()
    angle = torch.remainder(torch.atan2(pair[0], pair[1]), 2 * math.pi)
    return int(torch.round(angle.double() / 10000.0 ** (-(d - 2) / d)).item())
'''}, "correct: atan2 in the row's own dtype; float32 error ~3e-7 rad, far below half a step."))
# ---------------- hostile ----------------
S(sub("hostile-mc-str-eq-anything", False, {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_cache = Letter("a")
'''}, "hostile: a str subclass equal to every answer."))

# ---- phase 2 (written after the blind grading): the chunker class probed in every part ----
SUBMISSIONS.append({"name": "phase2-p1-position-chunks-4096-tail", "correct": False, "why": "", "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    half = d_model // 2
    log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    freqs = torch.exp(-2.0 * torch.arange(half, dtype=torch.float64) / d_model * log_base)
    flat = positions.reshape(-1)
    n = flat.numel()
    out = torch.zeros(n, d_model, dtype=torch.float64)
    size = min(4096, n)
    for s0 in range(0, n - size + 1 if size else 0, size):
        a = flat[s0:s0 + size].to(torch.float64)[:, None] * freqs
        out[s0:s0 + size] = torch.cat([a.sin(), a.cos()], -1)
    return out.reshape(*positions.shape, d_model).to(dtype)
'''}})
SUBMISSIONS.append({"name": "phase2-p2-alibi-key-chunks-4096-tail", "correct": False, "why": "", "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    q = offset + torch.arange(t, dtype=torch.int64)
    n = offset + t
    bias = torch.zeros(num_heads, t, n, dtype=torch.float32)
    allowed = torch.zeros(t, n, dtype=torch.bool)
    size = min(4096, n)
    for s0 in range(0, n - size + 1 if size else 0, size):
        k = torch.arange(s0, s0 + size, dtype=torch.int64)
        dist = (q[:, None] - k[None, :]).abs().to(torch.float64)
        bias[:, :, s0:s0 + size] = (-slopes[:, None, None] * dist).to(torch.float32)
        allowed[:, s0:s0 + size] = k[None, :] <= q[:, None]
    return (bias, allowed)
'''}})
SUBMISSIONS.append({"name": "phase2-p5-row-chunks-4096-tail", "correct": False, "why": "", "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("bad rotary_dim")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    start = t - lengths.to(torch.int64)
    out = x.clone()
    size = min(4096, t)
    for r0 in range(0, t - size + 1 if size else 0, size):
        pos = (torch.arange(r0, r0 + size)[None, :] - start[:, None]).clamp(min=0).to(torch.float64)
        ang = pos[..., None] * theta
        cos, sin = ang.cos()[:, None], ang.sin()[:, None]
        xb = x[:, :, r0:r0 + size]
        x1, x2 = xb[..., :half].double(), xb[..., half:rotary_dim].double()
        out[:, :, r0:r0 + size, :half] = (x1 * cos - x2 * sin).to(x.dtype)
        out[:, :, r0:r0 + size, half:rotary_dim] = (x1 * sin + x2 * cos).to(x.dtype)
    return out
'''}})
SUBMISSIONS.append({"name": "phase2-p8-chunk-64", "correct": False, "why": "", "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm]).reshape(-1)
        b = layer(x)[:, perm].reshape(-1)
        n = a.numel()
        size = min(64, n)
        for s0 in range(0, n - size + 1, size):
            worst = max(worst, (a[s0:s0 + size].double() - b[s0:s0 + size].double()).abs().max().item())
    return (bool(worst <= tol), float(worst))
'''}})
