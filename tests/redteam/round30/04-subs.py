# Red team round 30, chapter 04: five kinds of student (validator, batch-mixer, gradient-path,
# incremental, second-call), written blind.
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- 1. the validator
add("V1-table-refuses-negative-positions", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    if positions.numel() and int(positions.min()) < 0:
        raise ValueError("positions must be non-negative")
    half = d_model // 2
    new_base = base * scale ** (d_model / (d_model - 2))
    freq = new_base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    angle = positions.to(torch.float64).unsqueeze(-1) * freq
    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
'''}, "Part 1: 'Raise a ValueError when d_model is odd or smaller than 4 ... and in no other case' with positions 'of any integer dtype' (int8, int16 hold negatives): negative positions raise.")

add("V2-table-0d-positions-promoted", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    if positions.dim() == 0:
        positions = positions.reshape(1)   # a single position: make it a row
    half = d_model // 2
    log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    freq = torch.exp(-2 * torch.arange(half, dtype=torch.float64) / d_model * log_base)
    angle = positions.to(torch.float64)[..., None] * freq
    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
'''}, "Part 1: 'positions is an integer tensor of any shape (...) (one position, ...): return the (..., d_model) tensor': a 0-d position gives (1, d_model) instead of (d_model,).")

add("V3-shift-refuses-negative-offset", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    if not isinstance(offset, int) or offset < 0:
        raise ValueError(f"offset must be a non-negative int, got {offset!r}")
    half = d_model // 2
    freq = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    c, s = (offset * freq).cos(), (offset * freq).sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    idx = torch.arange(half)
    m[idx, idx], m[idx + half, idx + half] = c, c
    m[idx + half, idx], m[idx, idx + half] = s, -s
    return m
'''}, "Part 7: '`offset` (any Python int, negative too, ...)': negative offsets raise.")

add("V4-rope-empty-shortcut-before-check", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if x.numel() == 0:
        return x.clone()   # nothing to rotate
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError(f"rotary_dim must be even and in 2..{dh}, got {rotary_dim}")
    half = rotary_dim // 2
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    freq = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos.double()[:, None, :, None] * freq
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., :half].double(), x[..., half:rotary_dim].double()
    out1, out2 = x1 * cos - x2 * sin, x1 * sin + x2 * cos
    return torch.cat([out1.to(x.dtype), out2.to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''}, "Part 5: 'the rule on rotary_dim still holds there: an empty batch or T = 0 with rotary_dim = 0 raises': an empty x returns before the check.")

add("V5-equivariance-refuses-zero-tol", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    if trials < 1:
        raise ValueError("trials must be at least 1")
    if tol <= 0:
        raise ValueError(f"tol must be positive, got {tol}")
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    return (worst <= tol, float(worst))
'''}, "Part 8: '`True` exactly when worst <= tol (a gap equal to tol passes ...)': tol = 0 (exact equivariance, a gap of 0 passes) raises.")

# ---------------------------------------------------------------- 2. the batch-mixer
add("B1-equivariance-one-permutation", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    perm = torch.randperm(t, generator=generator)   # one random permutation, tried `trials` times
    worst = 0.0
    for _ in range(trials):
        gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'Draw trials permutations one after another, each with torch.randperm(T, generator=generator)': one draw is shared by every trial.")

add("B2-equivariance-mean-over-batch", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        diff = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs()
        gap = diff.amax(dim=(1, 2)).mean().item()   # each example's largest difference, averaged over the batch
        worst = max(worst, gap)
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'the gap is the largest absolute difference ... over all their entries': per-example maxima are averaged over the batch.")

add("B3-equivariance-first-example", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm])[0].double()
        b = layer(x)[0, perm].double()
        worst = max(worst, (a - b).abs().max().item())
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'over all their entries': only example 0 of the batch is compared.")

# ---------------------------------------------------------------- 3. the gradient-path student
add("G1-rope-polar-form", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError(f"rotary_dim must be even and in 2..{dh}, got {rotary_dim}")
    half = rotary_dim // 2
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    freq = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos.double()[:, None, :, None] * freq
    x1, x2 = x[..., :half].double(), x[..., half:rotary_dim].double()
    # a rotation adds the angle to the pair's own angle and keeps its length
    r = torch.sqrt(x1 * x1 + x2 * x2)
    phi = torch.atan2(x2, x1) + ang
    out1, out2 = r * torch.cos(phi), r * torch.sin(phi)
    return torch.cat([out1.to(x.dtype), out2.to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''}, "Part 5: 'rotate the pair as below, not through its length' and 'where entries of x are exactly 0 (a pair of zeros turns like any other pair)': sqrt and atan2 at 0 give NaN gradients.")

add("G2-rope-passthrough-detached", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError(f"rotary_dim must be even and in 2..{dh}, got {rotary_dim}")
    half = rotary_dim // 2
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    freq = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos.double()[:, None, :, None] * freq
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., :half].double(), x[..., half:rotary_dim].double()
    out1, out2 = x1 * cos - x2 * sin, x1 * sin + x2 * cos
    rest = x[..., rotary_dim:].detach().clone()   # untouched features: a plain copy
    return torch.cat([out1.to(x.dtype), out2.to(x.dtype), rest], dim=-1)
'''}, "Part 5: 'Gradients must flow through the result ... (no .detach())': the features past rotary_dim get no gradient.")

add("G3-rope-zero-pairs-skipped", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError(f"rotary_dim must be even and in 2..{dh}, got {rotary_dim}")
    half = rotary_dim // 2
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    freq = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos.double()[:, None, :, None] * freq
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., :half], x[..., half:rotary_dim]
    out1 = (x1.double() * cos - x2.double() * sin).to(x.dtype)
    out2 = (x1.double() * sin + x2.double() * cos).to(x.dtype)
    zero = (x1 == 0) & (x2 == 0)          # a pair of zeros stays zeros: keep it as it is
    out1 = torch.where(zero, x1.detach(), out1)
    out2 = torch.where(zero, x2.detach(), out2)
    return torch.cat([out1, out2, x[..., rotary_dim:]], dim=-1)
'''}, "Part 5: 'the hidden tests compare its gradient ... where entries of x are exactly 0 (a pair of zeros turns like any other pair: its slope is the rotation's)'.")

# ---------------------------------------------------------------- 4. the incremental student
add("I1-shift-matrix-power", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freq = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    c, s = freq.cos(), freq.sin()                # one step: offset 1
    step = torch.zeros(d_model, d_model, dtype=torch.float64)
    idx = torch.arange(half)
    step[idx, idx], step[idx + half, idx + half] = c, c
    step[idx + half, idx], step[idx, idx + half] = s, -s
    return torch.linalg.matrix_power(step, offset)   # k steps of one position each (negative: the inverse)
'''}, "Part 7: 'the hidden tests check the matrix itself to 1e-12 ... for offsets up to 10 000': a power of the one-step matrix accumulates rounding (and offsets near 2^63 are out of reach).")

add("I2-equivariance-last-trial-decides", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    equivariant = True
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item()
        equivariant = gap <= tol
        worst = max(worst, gap)
    return (bool(equivariant), float(worst))
'''}, "Part 8: '`equivariant` ... True exactly when worst <= tol': the flag is overwritten by each trial, so only the last one counts.")

add("I3-alibi-first-block-from-lesson", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    kpos = torch.arange(offset + t)
    if offset == 0:
        # the first block is the plain causal case: the lesson's distances i - j, hidden keys get 0
        qpos = torch.arange(t)
        dist = (qpos[:, None] - kpos[None, :]).clamp(min=0)
    else:
        qpos = offset + torch.arange(t)
        dist = (qpos[:, None] - kpos[None, :]).abs()
    bias = (-slopes[:, None, None] * dist.double()).float()
    allowed = kpos[None, :] <= qpos[:, None]
    return (bias, allowed)
'''}, "Part 2: 'query row i and key j get -m_h |offset + i - j|': with offset 0 (the first block) keys after the query get 0 instead of -m(j - i).")

# ---------------------------------------------------------------- 5. the second-call student
add("S1-equivariance-generator-restored", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    state = generator.get_state()   # leave the generator as we found it: the same call tests the same permutations
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        worst = max(worst, (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item())
    generator.set_state(state)
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'Draw trials permutations one after another, each with torch.randperm(T, generator=generator)': the generator is wound back, so the caller's next call repeats the same permutations.")

add("S2-table-default-dtype-reset", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    torch.set_default_dtype(torch.float64)      # angles in double precision
    half = d_model // 2
    b = base * scale ** (d_model / (d_model - 2))
    freq = b ** (-2 * torch.arange(half) / d_model)
    angle = positions.to(torch.float64)[..., None] * freq
    table = torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
    torch.set_default_dtype(torch.float32)      # back to the default
    return table
'''}, "Intro: 'Leave torch's process-wide settings as you found them ... the default dtype': a caller whose default was float64 gets float32 back.")

add("S3-equivariance-grad-switch", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    torch.set_grad_enabled(False)   # a test needs no gradients
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        worst = max(worst, (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item())
    torch.set_grad_enabled(True)
    return (bool(worst <= tol), float(worst))
'''}, "Intro: leave the grad mode as found ('a with torch.no_grad(): block inside a function is fine, since it puts the mode back'): under the caller's no_grad this turns gradients on.")

# ---------------------------------------------------------------- correct answers
add("C1-table-pow-keywords", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError(f"d_model must be even and >= 4, got {d_model}")
    half = d_model // 2
    # slowest frequency b'^(-(D-2)/D) = b^(-(D-2)/D) / scale  =>  b' = b * scale^(D/(D-2))
    stretched = torch.tensor(float(base), dtype=torch.float64) * torch.tensor(float(scale), dtype=torch.float64) ** (d_model / (d_model - 2))
    freq = torch.pow(stretched, -torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angle = torch.mul(positions.to(dtype=torch.float64).unsqueeze(dim=-1), freq)
    return torch.cat(tensors=[torch.sin(angle), torch.cos(angle)], dim=-1).to(dtype=dtype)
'''}, "Correct: the stretched base b * scale^(D/(D-2)) in float64 tensors, torch.pow, keyword arguments.")

add("C2-table-default-dtype-restored", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        half = d_model // 2
        log_b = math.log(base) + math.log(scale) * d_model / (d_model - 2)
        freq = torch.exp(-torch.arange(half) * (2.0 / d_model) * log_b)
        angle = positions.to(torch.float64)[..., None] * freq
        table = torch.cat([angle.sin(), angle.cos()], dim=-1)
    finally:
        torch.set_default_dtype(old)
    return table.to(dtype)
'''}, "Correct (second-call student done right): default dtype changed inside and put back as found in a finally; logs for huge bases.")

add("C3-alibi-loop-heads-tril", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    total = offset + t
    q = torch.arange(offset, total).unsqueeze(1)      # (T, 1) int64
    k = torch.arange(total).unsqueeze(0)              # (1, offset+T)
    dist = (q - k).abs().to(torch.float64)
    rows = []
    for h in range(num_heads):
        m = 2.0 ** (-8.0 * (h + 1) / num_heads)
        rows.append((-m * dist).to(torch.float32))
    bias = torch.stack(rows) if rows else torch.zeros(0, t, total)
    allowed = torch.ones(t, total, dtype=torch.bool).tril(diagonal=offset)
    return bias, allowed
'''}, "Correct: a loop over the heads, tril(diagonal=offset) for the block's causal mask (T x (offset+T) only).")

add("C4-alibi-single-token-special", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.pow(2.0, -8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    if t == 1:
        # one new token at position offset: its distances to keys 0..offset are offset..0
        dist = torch.arange(offset, -1, -1)[None, :]
        allowed = torch.ones(1, offset + 1, dtype=torch.bool)
    else:
        qpos = torch.arange(t) + offset
        kpos = torch.arange(offset + t)
        dist = (qpos[:, None] - kpos[None, :]).abs()
        allowed = kpos[None, :] <= qpos[:, None]
    bias = (slopes[:, None, None] * dist.to(torch.float64)).neg().to(torch.float32)
    return (bias, allowed)
'''}, "Correct (incremental student): the one-token step special-cased; the same values.")

add("C5-position-atan2-tensor", True, {"position": '''
def position_from_encoding(row):
    d = row.shape[0]
    pair = row[d - 2:].to(torch.float64)               # the slowest pair: sin, cos
    angle = torch.remainder(torch.atan2(pair[0], pair[1]), 2 * math.pi)
    omega = 10000.0 ** (-(d - 2) / d)
    return int(torch.round(angle / omega).item())
'''}, "Correct: torch.atan2 and torch.remainder on the slowest pair, in float64.")

add("C6-rope-where-padding", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    if rotary_dim % 2 != 0 or rotary_dim < 2 or rotary_dim > Dh:
        raise ValueError(f"rotary_dim must be even with 2 <= rotary_dim <= {Dh}, got {rotary_dim}")
    half = rotary_dim // 2
    pos = torch.arange(T)[None, :] - (T - lengths.to(torch.int64))[:, None]   # (B, T), negative on padding
    theta = torch.pow(torch.tensor(float(base), dtype=torch.float64), -2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos.to(torch.float64)[:, None, :, None] * theta                       # (B, 1, T, R/2)
    c, s = ang.cos(), ang.sin()
    a, b = x[..., :half].to(torch.float64), x[..., half:rotary_dim].to(torch.float64)
    rot = torch.cat([a * c - b * s, a * s + b * c], dim=-1).to(x.dtype)
    real = (pos >= 0)[:, None, :, None]
    rot = torch.where(real, rot, x[..., :rotary_dim])                           # padding rows: as they were
    return torch.cat([rot, x[..., rotary_dim:]], dim=-1)
'''}, "Correct (gradient-path student, honest): torch.where keeps the padding rows; its untaken branch is finite, so the gradient is the reference's.")

add("C7-shift-from-part1-table", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    if d_model >= 4:
        # Part 1's table at position `offset` holds sin(k w_i) then cos(k w_i)
        row = sinusoidal_table_halves(torch.tensor(offset, dtype=torch.int64), d_model, base=base, dtype=torch.float64)
        s, c = row[..., :half], row[..., half:]
    else:
        ang = offset * (base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model))
        s, c = ang.sin(), ang.cos()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(half):
        m[i, i] = c[i]
        m[i + half, i + half] = c[i]
        m[i + half, i] = s[i]
        m[i, i + half] = -s[i]
    return m
'''}, "Correct: the rotation's sines and cosines read from Part 1's table (a float64 table at position offset, scale 1), d_model = 2 by hand.")

add("C8-equivariance-no-grad", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst = 0.0
    with torch.no_grad():
        for _ in range(trials):
            perm = torch.randperm(x.shape[1], generator=generator)
            a = layer(x[:, perm]).detach().to(torch.float64)
            b = layer(x).detach()[:, perm].to(torch.float64)
            worst = max(worst, torch.max(torch.abs(a - b)).item())
    return (bool(worst <= tol), float(worst))
'''}, "Correct (gradient-path student, honest): no gradient is asked of Part 8, so no_grad and detach change nothing.")

add("C9-equivariance-amax-neg-inf-start", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst = float("-inf")
    t = x.shape[1]
    for trial in range(trials):
        perm = torch.randperm(t, generator=generator)
        permuted_out = layer(x[:, perm])
        out_permuted = layer(x)[:, perm]
        diff = permuted_out.to(torch.float64) - out_permuted.to(torch.float64)
        gap = float(diff.abs().amax())
        if gap > worst:
            worst = gap
    return (worst <= tol, worst)
'''}, "Correct: both calls per permutation, float(amax) of the float64 difference, worst starts at -inf (trials >= 1).")

add("C10-reach-and-mc", True, {"reach": '''
slope = 2 ** (-8 * 8 / 8)          # the flattest of 8 heads: 2^-8
alibi_reach = float(math.log(1000) / slope)
''', "mc": '''
answer_cache = "B".lower()
'''}, "Correct: d = ln(1000) / 2^-8 = 1768.4; (b).")

add("C11-equivariance-layer-x-once", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    reference = layer(x).to(torch.float64)          # the unpermuted output, computed once
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        gap = (layer(x[:, perm]).to(torch.float64) - reference[:, perm]).abs().max().item()
        worst = max(worst, gap)
    return (worst <= tol, float(worst))
'''}, "Correct? (incremental student, ambiguous): layer(x) is computed once and reused; the layer is still called for every permutation drawn, the identity too, and a dropout layer at T = 1 still gives a gap. The text ('Call the layer for every permutation drawn ... its two calls') may intend two calls per permutation: a probe of that sentence.")

add("C12-shift-exp-log-frequencies", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freq = torch.exp(-(2.0 / d_model) * math.log(base) * torch.arange(half, dtype=torch.float64))
    angle = freq * offset
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    idx = torch.arange(half)
    m[idx, idx] = angle.cos()
    m[idx + half, idx + half] = angle.cos()
    m[idx + half, idx] = angle.sin()
    m[idx, idx + half] = -angle.sin()
    return m
'''}, "Correct: frequencies exp(-2i/D ln b) in float64 (equal to b^(-2i/D) to an ulp or two), angles offset x frequency in float64 as the text describes.")

add("V6-equivariance-refuses-one-position", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    if x.dim() != 3 or x.shape[1] < 2:
        raise ValueError("need a (B, T, D) input with at least two positions to permute")
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        worst = max(worst, (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item())
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'x is an input with at least one entry (B, T, D >= 1 ...)' and 'when T = 1 every permutation is the identity ... no shortcut': T = 1 raises.")

add("C13-alibi-float32-slopes", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float32) / num_heads)   # float32 slopes
    q = torch.arange(t) + offset
    k = torch.arange(offset + t)
    dist = (q[:, None] - k[None, :]).abs().to(torch.float32)        # exact below 2^24
    bias = -slopes[:, None, None] * dist
    allowed = k[None, :] <= q[:, None]
    return bias, allowed
'''}, "Correct: 'compute the slopes in float32 or float64, as you like': float32 slopes times exact float32 distances (one rounding).")

add("C14-rope-rotate-in-x-dtype", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not (2 <= rotary_dim <= dh):
        raise ValueError(f"rotary_dim must be even with 2 <= rotary_dim <= {dh}, got {rotary_dim}")
    half = rotary_dim // 2
    pos = (torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]).clamp(min=0)   # (B, T)
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos.to(torch.float64)[:, None, :, None] * theta
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)       # as the lesson's rope: rotate in x's dtype
    x1, x2 = x[..., :half], x[..., half:rotary_dim]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., rotary_dim:]], dim=-1)
'''}, "Correct: angles, sines and cosines in float64, then 'rotate in the dtype of x or wider' (here: the dtype of x, as the lesson's rope).")

# ---------------------------------------------------------------- hostile
add("H1-mc-anything-str", False, {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_cache = Letter("a")
'''}, "Hostile: a str subclass equal to every answer.")

add("H2-reach-anything-float", False, {"reach": '''
class Reach(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
    __hash__ = float.__hash__
alibi_reach = Reach(1.0)
'''}, "Hostile: a float subclass that equals everything and subtracts to 0.")
