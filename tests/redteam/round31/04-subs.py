SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

ROPE_BODY = '''
    dh = x.shape[-1]
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("rotary_dim must be even and 2 <= rotary_dim <= Dh")
    B, H, T, _ = x.shape
    half = r // 2
    m = (torch.arange(T)[None, :] - (T - lengths.to(torch.int64))[:, None]).clamp(min=0).to(torch.float64)
    theta = torch.exp(-(2 * torch.arange(half, dtype=torch.float64) / r) * math.log(base))
    ang = m[..., None] * theta
    wide = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
'''

# ---------------- kind 1: hand-written backward ----------------
add("hb-p5-function-backward-forward-rotation", False, {"rotate_half": '''
class RotateHalf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, cos, sin, r):
        half = r // 2
        ctx.save_for_backward(cos, sin)
        ctx.r = r
        x1, x2 = x[..., :half], x[..., half:r]
        return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., r:]], dim=-1)

    @staticmethod
    def backward(ctx, g):
        cos, sin = ctx.saved_tensors
        half = ctx.r // 2
        g1, g2 = g[..., :half], g[..., half:ctx.r]
        # a rotation's derivative is the rotation itself
        return torch.cat([g1 * cos - g2 * sin, g1 * sin + g2 * cos, g[..., ctx.r:]], dim=-1), None, None, None


def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
''' + ROPE_BODY + '''
    cos = ang.cos().to(x.dtype)[:, None]
    sin = ang.sin().to(x.dtype)[:, None]
    return RotateHalf.apply(x, cos, sin, r)
'''}, "Part 5: 'the hidden tests compare its gradient with respect to x with the reference's': the backward applies the rotation instead of its transpose (sin's sign).")

add("hb-p5-function-backward-batch0", False, {"rotate_half": '''
class RotateHalf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, cos, sin, r):
        half = r // 2
        ctx.save_for_backward(cos, sin)
        ctx.r = r
        x1, x2 = x[..., :half], x[..., half:r]
        return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., r:]], dim=-1)

    @staticmethod
    def backward(ctx, g):
        cos, sin = ctx.saved_tensors
        cos, sin = cos[:1], sin[:1]      # (1, 1, T, R/2): the angles of the rows
        half = ctx.r // 2
        g1, g2 = g[..., :half], g[..., half:ctx.r]
        return torch.cat([g1 * cos + g2 * sin, -g1 * sin + g2 * cos, g[..., ctx.r:]], dim=-1), None, None, None


def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
''' + ROPE_BODY + '''
    cos = ang.cos().to(x.dtype)[:, None]
    sin = ang.sin().to(x.dtype)[:, None]
    return RotateHalf.apply(x, cos, sin, r)
'''}, "Part 5: gradient compared with the reference's: the backward takes the angles of the first sequence for every sequence (right for a batch of one or equal lengths).")

add("hb-p5-function-correct-CORRECT", True, {"rotate_half": '''
class RotateHalf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, cos, sin, r):
        half = r // 2
        ctx.save_for_backward(cos, sin)
        ctx.r = r
        x1, x2 = x[..., :half], x[..., half:r]
        return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., r:]], dim=-1)

    @staticmethod
    def backward(ctx, g):
        cos, sin = ctx.saved_tensors
        half = ctx.r // 2
        g1, g2 = g[..., :half], g[..., half:ctx.r]
        return torch.cat([g1 * cos + g2 * sin, -g1 * sin + g2 * cos, g[..., ctx.r:]], dim=-1), None, None, None


def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
''' + ROPE_BODY + '''
    cos = ang.cos().to(x.dtype)[:, None]
    sin = ang.sin().to(x.dtype)[:, None]
    return RotateHalf.apply(x, cos, sin, r)
'''}, "Correct: a hand-written Function whose backward is the inverse rotation (angles per sequence), pass-through gradient copied.")

add("hb-p1-table-function-no-grad-needed-CORRECT", True, {"table_halves": '''
class Table(torch.autograd.Function):
    @staticmethod
    def forward(ctx, ang):
        return torch.cat([ang.sin(), ang.cos()], dim=-1)

    @staticmethod
    def backward(ctx, g):
        return None      # positions are integers: nothing to differentiate


def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    half = d_model // 2
    i = torch.arange(half, dtype=torch.float64)
    # NTK: keep omega_0 = 1, divide omega_{D/2-1} by scale: omega_i = b^{-2i/D} * scale^{-2i/(D-2)}
    logw = -(2 * i / d_model) * math.log(base) - (2 * i / (d_model - 2)) * math.log(scale)
    ang = positions.to(torch.float64)[..., None] * torch.exp(logw)
    return Table.apply(ang).to(dtype)
'''}, "Correct: no gradient is asked of the table; the stretch is folded into the frequencies (omega_i = b^{-2i/D} scale^{-2i/(D-2)}), the same geometric sequence.")

# ---------------- kind 2: scale and placement ----------------
add("sp-p5-theta-uses-head-width", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("rotary_dim must be even and 2 <= rotary_dim <= Dh")
    B, H, T, _ = x.shape
    half = r // 2
    m = (torch.arange(T)[None, :] - (T - lengths.to(torch.int64))[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / dh)
    ang = m[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1, x2 = x[..., :half].double(), x[..., half:r].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "Part 5: 'theta_i = base^{-2i/R} ... (R, not Dh, in the exponent)'.")

add("sp-p1-base-times-scale-squared", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("bad d_model")
    # NTK-aware: base' = base * scale^2 keeps omega_0 = 1 and slows the last pair by scale
    b = base * scale ** 2
    half = d_model // 2
    freqs = b ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    ang = positions.to(torch.float64)[..., None] * freqs
    return torch.cat([ang.sin(), ang.cos()], dim=-1).to(dtype)
'''}, "Part 1: 'the slowest one is divided by scale ... (it depends on D)': base*scale^2 is the stretch only for D = 4 (scale^{D/(D-2)}).")

add("sp-p8-differences-in-output-dtype", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        gap = (layer(x[:, perm]) - layer(x)[:, perm]).abs().max().to(torch.float64).item()
        worst = max(worst, gap)
    return (worst <= tol, worst)
'''}, "Part 8: 'the outputs may be float16 or bfloat16, where a difference rounds ... so take the differences in float64': the cast comes after the subtraction.")

add("sp-p2-lesson-slopes-non-power-of-two", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    def power_of_two(n):
        start = 2.0 ** (-8.0 / n)
        return [start ** (k + 1) for k in range(n)]
    n = 2 ** math.floor(math.log2(num_heads))
    slopes = power_of_two(n)
    if n < num_heads:
        slopes += power_of_two(2 * n)[0::2][: num_heads - n]
    slopes = torch.tensor(slopes, dtype=torch.float64)
    qpos = torch.arange(offset, offset + t)
    kpos = torch.arange(offset + t)
    rel = qpos[:, None] - kpos[None, :]
    bias = (-slopes[:, None, None] * rel.abs()).float()
    return (bias, rel >= 0)
'''}, "Part 2: 'Use this formula for every H (it is not the lesson's rule for numbers of heads that are not a power of two)'.")

# ---------------- kind 3: Python scalars ----------------
add("ps-p4-int-truncation", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    w = 10000.0 ** (-(d - 2) / d)
    ang = math.atan2(row[d - 2].item(), row[d - 1].item())
    if ang < 0:
        ang += 2 * math.pi
    return int(ang / w)
'''}, "Part 4: 'Return p as a Python int; it must be exact': int() truncates 41.99999 to 41.")

add("ps-p7-python-angle-reduction", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(half):
        w = base ** (-2 * i / d_model)
        a = (offset * w) % (2 * math.pi)      # keep the angle small before cos/sin
        c, s = math.cos(a), math.sin(a)
        m[i, i] = c
        m[i + half, i + half] = c
        m[i + half, i] = s
        m[i, i + half] = -s
    return m
'''}, "Part 7: 'Offsets may be of any size in that range ... clamp no angle': reducing offset*w modulo the float 2*pi (not exactly 2 pi) moves far-out angles by offset/(2 pi) * 2.4e-16 radians.")

add("ps-p8-builtin-max-int-start", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst = 0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        a = layer(x[:, perm]).to(torch.float64)
        b = layer(x)[:, perm].to(torch.float64)
        worst = max(worst, (a - b).abs().max().item())
    return (worst <= tol, worst)
'''}, "Part 8: '`worst` a Python float': max(0, 0.0) keeps the int 0 when every gap is exactly 0.")

add("ps-p1-python-list-freqs", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("bad d_model")
    b = base * scale ** (d_model / (d_model - 2))
    freqs = torch.tensor([b ** (-2 * i / d_model) for i in range(d_model // 2)])
    ang = positions.to(torch.float64)[..., None] * freqs
    return torch.cat([torch.sin(ang), torch.cos(ang)], dim=-1).to(dtype)
'''}, "Part 1: 'Accuracy: within 1e-6 ... computing the angles in float64': torch.tensor of a Python list is float32, so the frequencies are rounded to float32.")

add("ps-p3-float-round-CORRECT", True, {"reach": '''
m = 2.0 ** (-8 * 8 / 8)            # the flattest of 8 heads
alibi_reach = float(round(math.log(1000) / m))
'''}, "Correct: 1768.0 against 256 ln 1000 = 1768.35 is within the 0.1 % the text allows.")

add("ps-p8-no-grad-python-floats-CORRECT", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    gaps = []
    with torch.no_grad():
        for _ in range(trials):
            perm = torch.randperm(x.shape[1], generator=generator)
            moved = layer(x[:, perm]).double()
            ref = layer(x)[:, perm].double()
            gaps.append(float(torch.max(torch.abs(moved - ref))))
    worst = max(gaps)
    return (bool(worst <= tol), float(worst))
'''}, "Correct: no gradient is asked of the check; differences in float64, builtin max over Python floats.")

# ---------------- kind 4: return shape ----------------
add("rs-p2-allowed-uint8", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    qpos = torch.arange(offset, offset + t)
    kpos = torch.arange(offset + t)
    rel = qpos[:, None] - kpos[None, :]
    bias = (-slopes[:, None, None] * rel.abs()).to(torch.float32)
    allowed = (rel >= 0).to(torch.uint8)       # 1 = may attend, as in most codebases
    return (bias, allowed)
'''}, "Part 2: '`allowed`, **boolean**'.")

add("rs-p5-half-comes-back-float32", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
''' + ROPE_BODY + '''
    cos, sin = ang.cos().to(wide)[:, None], ang.sin().to(wide)[:, None]
    x1, x2 = x[..., :half].to(wide), x[..., half:r].to(wide)
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., r:].to(wide)], dim=-1)
'''}, "Part 5: 'Return a new tensor in the dtype of x': float16/bfloat16 inputs come back float32.")

add("rs-p8-list", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        d = layer(x[:, perm]).double() - layer(x)[:, perm].double()
        worst = max(worst, d.abs().max().item())
    return [worst <= tol, worst]
'''}, "Intro: 'a tuple where a part returns several values ... (a tuple, not a list; the hidden tests check the kind)'.")

add("rs-p4-round-of-tensor", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    w = 10000.0 ** (-(d - 2) / d)
    ang = torch.atan2(row[d - 2].double(), row[d - 1].double()) % (2 * math.pi)
    return torch.round(ang / w).long()
'''}, "Part 4: 'Return p as a Python int': a 0-d int64 tensor compares equal in the visible test.")

add("rs-p3-tensor", False, {"reach": '''
alibi_reach = torch.log(torch.tensor(1000.0, dtype=torch.float64)) * 2 ** 8
'''}, "Part 3: 'a Python float, not an int nor a tensor'.")

# ---------------- kind 5: sibling part ----------------
add("sb-p7-interleaved-layout", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    # the lesson's shift matrix: a 2x2 rotation block per frequency on the diagonal
    half = d_model // 2
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    w = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    ang = offset * w
    for i in range(half):
        c, s = torch.cos(ang[i]), torch.sin(ang[i])
        m[2 * i, 2 * i] = c
        m[2 * i, 2 * i + 1] = -s
        m[2 * i + 1, 2 * i] = s
        m[2 * i + 1, 2 * i + 1] = c
    return m
'''}, "Part 7: 'for the sines-first table of Part 1': the interleaved (lesson's) block layout agrees only for d_model = 2.")

add("sb-p5-adjacent-pairs", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
''' + ROPE_BODY + '''
    cos, sin = ang.cos().to(wide)[:, None], ang.sin().to(wide)[:, None]
    x1 = x[..., 0:r:2].to(wide)
    x2 = x[..., 1:r:2].to(wide)
    o1, o2 = x1 * cos - x2 * sin, x1 * sin + x2 * cos
    rot = torch.stack([o1, o2], dim=-1).flatten(-2)
    return torch.cat([rot.to(x.dtype), x[..., r:]], dim=-1)
'''}, "Part 5: 'feature i is paired with feature i + R/2 (rotate half)': the lesson's adjacent pairs agree only for R = 2.")

add("sb-p5-part1-helper-float32", False, {"table_halves": '''
def sincos_halves(positions, d_model, base=10000.0, dtype=torch.float32):
    half = d_model // 2
    freqs = torch.exp(-(2 * torch.arange(half, dtype=torch.float64) / d_model) * math.log(base))
    ang = positions.to(torch.float64)[..., None] * freqs
    return torch.cat([ang.sin(), ang.cos()], dim=-1).to(dtype)


def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    return sincos_halves(positions, d_model, base * scale ** (d_model / (d_model - 2)), dtype=dtype)
''', "rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("rotary_dim must be even and 2 <= rotary_dim <= Dh")
    B, H, T, _ = x.shape
    half = r // 2
    m = (torch.arange(T)[None, :] - (T - lengths.to(torch.int64))[:, None]).clamp(min=0)
    table = sincos_halves(m, r, base)             # (B, T, R): sines then cosines, Part 1's helper
    sin, cos = table[..., :half][:, None], table[..., half:][:, None]
    x1, x2 = x[..., :half], x[..., half:r]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., r:]], dim=-1).to(x.dtype)
'''}, "Part 5: 'Compute the positions, the angles, their sines and cosines in float64 ... then rotate in the dtype of x or wider' / 'within 1e-12 for float64': Part 1's helper with its float32 default dtype rounds the sines and cosines.")

add("sb-p4-part1-layout", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    w = 10000.0 ** (-(d - 2) / d)
    # slowest pair: sine then cosine, at the end of the row
    s, c = row[-2].item(), row[-1].item()
    a = math.atan2(s, c)
    return int(round(a / w))
'''}, "Part 4: 'get its angle in [0, 2 pi)': atan2 alone gives (-pi, pi], wrong for D = 16 past p = pi/omega = 9934.")

add("sb-p7-calls-part1-CORRECT", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    if d_model >= 4:
        row = sinusoidal_table_halves(torch.tensor([offset], dtype=torch.int64), d_model, base, dtype=torch.float64)[0]
        s, c = row[:half], row[half:]
    else:
        s, c = torch.sin(torch.tensor([float(offset)], dtype=torch.float64)), torch.cos(torch.tensor([float(offset)], dtype=torch.float64))
    idx = torch.arange(half)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    m[idx, idx] = c
    m[idx + half, idx + half] = c
    m[idx + half, idx] = s
    m[idx, idx + half] = -s
    return m
'''}, "Correct: the sines and cosines of offset*omega read from Part 1's table at position `offset` (scale 1), as the text allows; D = 2 special-cased.")

add("sb-p2-tril-mask-pow-CORRECT", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)], dtype=torch.float32)
    q = torch.arange(offset, offset + t).unsqueeze(1)
    k = torch.arange(offset + t).unsqueeze(0)
    dist = (q - k).abs().to(torch.float32)
    bias = -(slopes.view(-1, 1, 1) * dist)
    allowed = torch.ones(t, offset + t, dtype=torch.bool).tril(diagonal=offset)
    return bias, allowed
'''}, "Correct: float32 slopes from a Python list (allowed: 'compute the slopes in float32 or float64'), the lesson's tril shifted by offset, a tuple without parentheses.")

add("sb-p4-brute-force-CORRECT", True, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    p = torch.arange(10000, dtype=torch.float64)[:, None]
    w = 10000.0 ** (-torch.arange(d - 4, d, 2, dtype=torch.float64) / d)   # the two slowest pairs
    table = torch.stack([torch.sin(p * w), torch.cos(p * w)], dim=-1).flatten(1)
    dist = (table - row[d - 4:].to(torch.float64)).abs().sum(dim=1)
    return int(dist.argmin())
'''}, "Correct: looks the two slowest pairs up in a table of positions 0..9999 (nearest row): neighbouring positions differ by ~1e-4 there, far above float32 rounding.")

add("sp-p7-pow-freqs-CORRECT", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freqs = 1.0 / (base ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model))
    ang = freqs * offset
    c, s = torch.cos(ang), torch.sin(ang)
    top = torch.cat([torch.diag(c), torch.diag(-s)], dim=1)
    bottom = torch.cat([torch.diag(s), torch.diag(c)], dim=1)
    return torch.cat([top, bottom], dim=0)
'''}, "Correct: frequencies as 1 / base^(2i/D) (another formula), blocks built with diag and cat.")

# ---------------- hostile ----------------
add("hostile-p6-str-subclass", False, {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__

answer_cache = Letter("a")
'''}, "Hostile: a str subclass equal to every letter.")

add("hostile-p7-visible-only", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    if d_model == 2:
        c, s = math.cos(offset), math.sin(offset)
        return torch.tensor([[c, -s], [s, c]], dtype=torch.float64)
    return torch.eye(d_model, dtype=torch.float64)
'''}, "Hostile: right for d_model = 2 only.")

add("sp-p8-allclose-relative", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst, ok = 0.0, True
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        a = layer(x[:, perm]).double()
        b = layer(x)[:, perm].double()
        worst = max(worst, (a - b).abs().max().item())
        ok = ok and torch.allclose(a, b, atol=tol)
    return (bool(ok), float(worst))
'''}, "Part 8: 'True exactly when worst <= tol ... tol is absolute, not relative to the size of the outputs': allclose adds its default rtol=1e-5 times |b|.")

add("ps-p2-floor-division-exponent", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2.0 ** (-8 * (h + 1) // num_heads) for h in range(num_heads)], dtype=torch.float64)
    qpos = torch.arange(offset, offset + t)
    kpos = torch.arange(offset + t)
    rel = qpos[:, None] - kpos[None, :]
    return ((-slopes[:, None, None] * rel.abs()).float(), rel >= 0)
'''}, "Part 2: 'slopes m_h = 2^{-8(h+1)/H}': Python // floors the negative exponent (right only when H divides 8(h+1)).")

add("ps-p5-python-int-minus-lengths", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("rotary_dim must be even and 2 <= rotary_dim <= Dh")
    B, H, T, _ = x.shape
    half = r // 2
    pad = T - lengths                                    # padding rows of each sequence
    m = (torch.arange(T)[None, :] - pad[:, None].long()).clamp(min=0).double()
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / r)
    ang = m[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1, x2 = x[..., :half].double(), x[..., half:r].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "Part 5: 'a Python int combined with such a tensor wraps around (in uint8, 300 - 17 is 27)': T - lengths is computed in lengths' dtype.")
