# Red-team round 33, chapter 04: global-statistics, sign-convention, late-binding, equality, side-effect students.
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- 1. global-statistics student
add("batch_mean_gap_equivariance", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        with torch.no_grad():
            diff = layer(x[:, perm]).double() - layer(x)[:, perm].double()
        gap = diff.abs().amax(dim=(1, 2)).mean().item()   # each example's largest difference, averaged
        worst = max(worst, gap)
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'the gap is the largest absolute difference ... over all their entries' - averaging the examples' "
      "largest differences gives less when B > 1.")

add("one_stretch_for_all_slow_table_halves", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    half = d_model // 2
    i = torch.arange(half, dtype=torch.float64)
    freqs = base ** (-2 * i / d_model)
    # keep the fastest frequency, stretch the others by the same factor
    stretch = torch.where(i == 0, torch.ones_like(i), torch.full_like(i, float(scale)))
    ang = positions.to(torch.float64)[..., None] * (freqs / stretch)
    return torch.cat([ang.sin(), ang.cos()], dim=-1).to(dtype)
'''}, "Part 1: 'keeps the frequencies geometric and changes only the base b' - one factor for every slow frequency "
      "agrees with the new base only for D = 4, where the slowest is the only one.")

add("one_slope_all_heads_alibi", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    qpos = torch.arange(offset, offset + t)[:, None]
    kpos = torch.arange(offset + t)[None, :]
    dist = (qpos - kpos).abs().to(torch.float64)
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    # the steepest slope sets the scale of the whole bias
    bias = (-slopes.max() * dist).expand(num_heads, t, offset + t).to(torch.float32)
    return (bias.clone(), kpos <= qpos)
'''}, "Part 2: 'with the slopes m_h = 2^{-8(h+1)/H} for h = 0..H-1' - one slope for every head.")

add("first_sequence_padding_rope", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    bsz, h, t, dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("rotary_dim must be even, between 2 and Dh")
    half = rotary_dim // 2
    inv = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    lens = lengths.to(torch.int64)
    # rows before the batch's shortest real part are padding everywhere; positions count per sequence
    first = t - int(lens.min()) if bsz else 0
    pos = (torch.arange(t)[None, :] - (t - lens)[:, None]).to(torch.float64)
    pos[:, :first] = 0
    ang = pos[:, None, :, None] * inv
    c, s = ang.cos(), ang.sin()
    x1, x2 = x[..., :half].to(torch.float64), x[..., half:rotary_dim].to(torch.float64)
    o1, o2 = x1 * c - x2 * s, x1 * s + x2 * c
    return torch.cat([o1.to(x.dtype), o2.to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''}, "Part 5: 'Padding rows (where that would be negative) are treated as position 0' - zeroing only the rows every "
      "sequence pads leaves the longer padding of shorter sequences at negative positions (rotated by -m theta).")

# ---------------------------------------------------------------- 2. sign-convention student
add("rotate_half_missing_minus_rope", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    bsz, h, t, dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("rotary_dim must be even, between 2 and Dh")
    half = rotary_dim // 2
    inv = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    pos = torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]
    ang = pos.clamp(min=0).to(torch.float64)[:, None, :, None] * inv
    c, s = torch.cat([ang.cos()] * 2, -1), torch.cat([ang.sin()] * 2, -1)
    xr = x[..., :rotary_dim].to(torch.float64)
    x1, x2 = xr[..., :half], xr[..., half:]
    rotated = torch.cat([x2, x1], dim=-1)          # rotate_half, the GPT-NeoX way
    out = xr * c + rotated * s
    return torch.cat([out.to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''}, "Part 5: 'x'_i = x_i cos m theta_i - x_{i+R/2} sin m theta_i' - rotate_half without its minus adds the second "
      "half's sine term (invisible when that half is 0, as in the visible case).")

add("angle_in_minus_pi_pi_position", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    i = d // 2 - 1                       # the slowest pair does not wrap around below 10000
    ang = math.atan2(float(row[2 * i]), float(row[2 * i + 1]))
    return int(round(ang / 10000.0 ** (-2 * i / d)))
'''}, "Part 4: 'get its angle in [0, 2 pi)' - atan2's (-pi, pi] gives a negative angle, hence a negative position, "
      "where the slowest pair passes pi (D = 16, p above about 9940).")

add("mirror_pairs_shift", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freqs = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    ang = offset * freqs
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(half):
        sin_col, cos_col = i, d_model - 1 - i     # the cosines run back from the end
        m[sin_col, sin_col] = m[cos_col, cos_col] = math.cos(ang[i])
        m[sin_col, cos_col] = -math.sin(ang[i])
        m[cos_col, sin_col] = math.sin(ang[i])
    return m
'''}, "Part 7: 'column i is sin(p w_i) and column i + D/2 is cos(p w_i)' - the cosines counted from the end (the same "
      "for D = 2 and for the slowest pair... only).")

add("lambda_per_trial_equivariance", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    checks = []
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        checks.append(lambda: (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item())
    with torch.no_grad():
        gaps = [check() for check in checks]
    worst = max(gaps)
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'For each permutation perm, the gap is ...; worst is the largest gap over all trials' - every lambda "
      "reads the last perm, so only the last permutation is measured (trials times).")

add("history_default_equivariance", False, {"equivariance": '''
def record_gap(gap, history=[]):
    history.append(gap)
    return max(history)


def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        with torch.no_grad():
            gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item()
        worst = record_gap(gap)
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'worst is the largest gap over all trials' (of this call) - the default list keeps every earlier "
      "call's gaps.")

add("strict_tol_equivariance", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        with torch.no_grad():
            gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    return (worst < tol, float(worst))
'''}, "Part 8: 'True exactly when worst <= tol (a gap equal to tol passes)'.")

add("allclose_verdict_equivariance", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst, equivariant = 0.0, True
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        with torch.no_grad():
            a, b = layer(x[:, perm]).double(), layer(x)[:, perm].double()
        worst = max(worst, (a - b).abs().max().item())
        equivariant = equivariant and torch.allclose(a, b, atol=tol)
    return (bool(equivariant), float(worst))
'''}, "Part 8: 'tol is absolute, not relative to the size of the outputs' - allclose adds rtol = 1e-5 times |b|.")

add("float32_verdict_equivariance", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    gaps = []
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        with torch.no_grad():
            gaps.append((layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max())
    worst = torch.stack(gaps).max()
    return (bool(torch.tensor(worst.item()) <= tol), float(worst))
'''}, "Part 8: 'True exactly when worst <= tol ... one above it fails however little' - torch.tensor(float) is float32: "
      "a gap just above tol rounds onto it (and tol itself is rounded to float32 in the comparison).")

add("rounded_worst_equivariance", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        with torch.no_grad():
            gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    worst = round(worst, 9)      # float noise below 1e-9 is no difference
    return (worst <= tol, float(worst))
'''}, "Part 8: 'the gap is the largest absolute difference ... exactly' and 'one above it fails however little' - "
      "rounding to 9 decimals returns another number and lets a gap just above tol pass.")

add("hook_left_on_module_equivariance", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    if isinstance(layer, torch.nn.Module):
        # compare the outputs in float64: let the module hand them over that way
        layer.register_forward_hook(lambda module, args, out: out.double())
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        with torch.no_grad():
            gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'Call layer as it is given' / 'a test you could use on any layer' - the hook stays registered and the "
      "caller's module returns float64 from now on.")

add("layer_frozen_equivariance", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    if isinstance(layer, torch.nn.Module):
        layer.requires_grad_(False)      # no gradients needed for a test
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).detach().double() - layer(x)[:, perm].detach().double()).abs().max().item()
        worst = max(worst, gap)
    return (bool(worst <= tol), float(worst))
'''}, "Intro: 'Your functions must not change the tensors they are given ... That includes their requires_grad flag' - "
      "the layer's parameters are frozen for good.")

add("reseed_generator_equivariance", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    generator.manual_seed(generator.initial_seed())   # two calls test the same permutations
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        with torch.no_grad():
            gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'Draw trials permutations one after another ... and draw nothing else from generator' - reseeding it "
      "rewinds the caller's generator (a second call repeats the first call's permutations).")

add("lengths_data_swapped_rope", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    bsz, h, t, dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("rotary_dim must be even, between 2 and Dh")
    if lengths.dtype != torch.int64:
        lengths.data = lengths.data.to(torch.int64)   # small integer dtypes wrap: widen once
    half = rotary_dim // 2
    inv = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    pos = (torch.arange(t)[None, :] - (t - lengths)[:, None]).clamp(min=0).to(torch.float64)
    ang = pos[:, None, :, None] * inv
    c, s = ang.cos(), ang.sin()
    x1, x2 = x[..., :half].to(torch.float64), x[..., half:rotary_dim].to(torch.float64)
    return torch.cat([(x1 * c - x2 * s).to(x.dtype), (x1 * s + x2 * c).to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''}, "Intro: 'Your functions must not change the tensors they are given' - the caller's lengths tensor now has "
      "dtype int64 (its .data replaced; its version counter unchanged).")

# ---------------------------------------------------------------- correct answers
add("ok_per_channel_ntk_table_halves", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError(f"d_model={d_model}: need an even width of at least 4")
    half = d_model // 2
    i = torch.arange(half, dtype=torch.float64)
    # NTK: frequency i is divided by scale ** (i / (half - 1)): 1 for the fastest, scale for the slowest
    freqs = base ** (-2.0 * i / d_model) / float(scale) ** (i / (half - 1))
    ang = positions.double().unsqueeze(-1) * freqs
    return torch.cat((torch.sin(ang), torch.cos(ang)), dim=-1).to(dtype=dtype)
'''}, "NTK written per channel: the same geometric sequence")

add("ok_ratio_slopes_float32_alibi", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    ratio = 2.0 ** (-8.0 / num_heads)
    slopes = torch.tensor([ratio ** (h + 1) for h in range(num_heads)], dtype=torch.float64)
    rel = (torch.arange(offset, offset + t)[:, None] - torch.arange(offset + t)[None, :]).to(torch.float32)
    allowed = rel >= 0          # float32 holds every integer below 2**24
    bias = (-slopes[:, None, None] * rel.abs().double()).float()
    return (bias, allowed)
'''}, "slopes as powers of one ratio, distances in float32 (exact below 2**24)")

add("ok_reach_mc_expressions", True, {"reach": '''
smallest_slope = 2.0 ** (-8 * 8 / 8)
alibi_reach = float(math.log(1000.0) / smallest_slope)
''', "mc": '''
answer_cache = "B".lower()
'''}, "expressions")

add("ok_torch_atan2_position", True, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    slow = row.double()[d - 2:]                  # the last pair: sin, cos of the slowest frequency
    angle = torch.atan2(slow[0], slow[1])
    angle = torch.where(angle < 0, angle + 2 * math.pi, angle)
    omega = 10000.0 ** (-(d - 2) / d)
    return int(torch.round(angle / omega).item())
'''}, "torch.atan2 in float64, negative angles moved by 2 pi")

add("ok_loop_batch_rope", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    bsz, h, t, dh = x.shape
    if rotary_dim % 2 != 0 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("rotary_dim must be even and between 2 and Dh")
    half = rotary_dim // 2
    theta = float(base) ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    rows = torch.arange(t, dtype=torch.int64)
    outs = []
    for n in range(bsz):
        m = rows - (t - int(lengths[n]))
        m = torch.where(m < 0, torch.zeros_like(m), m).double()
        ang = torch.outer(m, theta)
        cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)
        xr = x[n, :, :, :rotary_dim].double()
        turned = torch.cat([-xr[..., half:], xr[..., :half]], dim=-1)
        outs.append(torch.cat([(xr * cos + turned * sin).to(x.dtype), x[n, :, :, rotary_dim:]], dim=-1))
    if not outs:
        return x[..., :0].sum(-1, keepdim=True).expand(0, h, t, dh) * 0 + x.new_zeros(0, h, t, dh)
    return torch.stack(outs)
'''}, "loop over the batch, rotate_half with its minus, float64 throughout")

add("ok_blocks_shift", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    omega = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    angle = int(offset) * omega
    c, s = torch.diag(torch.cos(angle)), torch.diag(torch.sin(angle))
    top = torch.cat([c, -s], dim=1)      # the sines' rows
    bottom = torch.cat([s, c], dim=1)    # the cosines' rows
    return torch.cat([top, bottom], dim=0)
'''}, "block matrix of diagonals")

add("ok_inverse_perm_isclose_equivariance", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    perms = [torch.randperm(t, generator=generator) for _ in range(trials)]
    hooks = []
    if isinstance(layer, torch.nn.Module):      # a hook that only watches, removed before we return
        seen = []
        hooks.append(layer.register_forward_hook(lambda module, args, out: seen.append(out.dtype)))
    try:
        worst = 0.0
        for perm in perms:
            with torch.no_grad():
                back = torch.argsort(perm)
                a = layer(x[:, perm])[:, back].to(torch.float64)
                b = layer(x).to(torch.float64)
            worst = max(worst, (b - a).abs().max().item())
    finally:
        for hk in hooks:
            hk.remove()
    return (math.isclose(worst, 0.0, rel_tol=0.0, abs_tol=tol), float(worst))
'''}, "perms drawn first, compared after undoing perm (max over all entries is the same), math.isclose with "
      "abs_tol (<=), a watching hook removed")

# ---------------------------------------------------------------- hostile
add("hostile_anything_reach_mc", False, {"reach": '''
class Anything(float):
    def __eq__(self, other):
        return True
    __ne__ = lambda self, other: False
    __lt__ = __le__ = __gt__ = __ge__ = lambda self, other: True
    __hash__ = float.__hash__
    def __sub__(self, other):
        return 0.0
    __rsub__ = __sub__


alibi_reach = Anything(1.0)
''', "mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__


answer_cache = Letter("a")
'''}, "hostile: float/str subclasses equal to everything")

add("restore_generator_equivariance", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    state = generator.get_state()      # a test should not use up the caller's randomness
    t = x.shape[1]
    worst = 0.0
    try:
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            with torch.no_grad():
                gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item()
            worst = max(worst, gap)
    finally:
        generator.set_state(state)
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'Draw trials permutations one after another, each with torch.randperm(T, generator=generator)' - the "
      "generator is put back, so a caller's next draw repeats these permutations (fewer draws than the text says).")

add("ok_stacked_gaps_equivariance", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    gaps = []
    with torch.no_grad():
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            moved = layer(x[:, perm]).to(torch.float64)
            ref = layer(x).to(torch.float64)[:, perm]
            gaps.append(torch.sub(moved, ref).abs().amax())
        worst = float(torch.stack(gaps).amax())
    return (worst <= tol, worst)
'''}, "stacked gaps, amax, both calls per trial in the text's order")

add("ok_where_position0_rope", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    bsz, h, t, dh = x.shape
    if not (rotary_dim % 2 == 0 and 2 <= rotary_dim <= dh):
        raise ValueError("rotary_dim must be even and in [2, Dh]")
    half = rotary_dim // 2
    freqs = 1.0 / (base ** (torch.arange(half, dtype=torch.float64) * 2 / rotary_dim))
    pos = torch.arange(t)[None, :] - (t - lengths.long())[:, None]
    pos = pos.clamp(min=0)
    ang = (pos.double()[..., None] * freqs)[:, None]          # (B, 1, T, R/2)
    wide = torch.float64
    x1, x2 = x[..., :half].to(wide), x[..., half:rotary_dim].to(wide)
    rot = torch.cat([x1 * ang.cos() - x2 * ang.sin(), x1 * ang.sin() + x2 * ang.cos()], dim=-1).to(x.dtype)
    at_zero = (pos == 0)[:, None, :, None]                    # position 0 turns by nothing: keep the values
    rot = torch.where(at_zero, x[..., :rotary_dim], rot)
    return torch.cat([rot, x[..., rotary_dim:]], dim=-1)
'''}, "rows at position 0 taken from x (equal values, allowed), 1 / base ** (...) frequencies")
