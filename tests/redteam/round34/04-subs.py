"""Round 34 red team, chapter 04-positional-encoding: magic-number, composer, module-registration,
(text-and-token: no text here; empty sequences only), low-precision students."""

P1 = '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    stretched = base * scale ** (d_model / (d_model - 2))  # slowest frequency divided by scale
    freq = stretched ** (-2.0 * torch.arange(d_model // 2, dtype=torch.float64, device=positions.device) / d_model)
    angles = positions.to(torch.float64)[..., None] * freq
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''

P2 = '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    queries = torch.arange(offset, offset + t)[:, None]
    keys = torch.arange(offset + t)[None, :]
    bias = (-slopes[:, None, None] * (queries - keys).abs()).to(torch.float32)
    return (bias, keys <= queries)
'''

P4 = '''
def position_from_encoding(row):
    d = row.shape[-1]
    s, c = float(row[d - 2]), float(row[d - 1])
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(s, c) % (2 * math.pi)
    return int(round(angle / omega))
'''

P5 = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError(f"rotary_dim must be even and in [2, {dh}], got {rotary_dim}")
    half = rotary_dim // 2
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    m = (torch.arange(t)[None, :] - (t - lengths.to(torch.long))[:, None]).clamp(min=0)  # (B, T)
    angles = m.to(torch.float64)[:, None, :, None] * theta  # (B, 1, T, R/2)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x1, x2, rest = x[..., :half], x[..., half:rotary_dim], x[..., rotary_dim:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)
'''

P7 = '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freq = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_model)
    angles = offset * freq
    c, s = angles.cos(), angles.sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i], m[i, i + half], m[i + half, i], m[i + half, i + half] = c, -s, s, c
    return m
'''

P8 = '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    with torch.no_grad():
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            moved = layer(x[:, perm])
            plain = layer(x)[:, perm]
            gap = (moved.to(torch.float64) - plain.to(torch.float64)).abs().max().item()
            worst = max(worst, gap)
    return (worst <= tol, float(worst))
'''

SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# =============================================================== WRONG
# --- magic-number student
add("w01-table-floor-frequency", False, {"table_halves": P1.replace(
    "    angles = positions", "    freq = freq.clamp(min=1e-12)  # keep the slowest frequency off zero\n    angles = positions")},
    "magic-number: floors the frequencies at 1e-12: 'Both may be as large as you like (... a slowest frequency of 1e-15): floor no frequency'.")
add("w02-alibi-clamp-half-range", False, {"alibi_block": P2.replace(
    "return (bias, keys <= queries)", "bias = bias.clamp(min=-65504.0)  # stays finite if the caller uses float16\n    return (bias, keys <= queries)")},
    "magic-number: clamps the bias at -65504: 'however far the key (no clamp ...)' (offsets in the millions, H large).")
add("w03-equiv-fixed-tol", False, {"equivariance": P8.replace("return (worst <= tol, float(worst))",
                                                              "return (worst <= 1e-5, float(worst))")},
    "magic-number: a fixed 1e-5 where the text passes tol: 'True exactly when worst <= tol'.")
add("w04-equiv-tol-fuzz", False, {"equivariance": P8.replace("return (worst <= tol, float(worst))",
                                                             "return (worst <= tol + 1e-12, float(worst))  # float fuzz")},
    "magic-number: tol + 1e-12: 'one above it fails however little'.")
add("w05-rope-floor-theta", False, {"rotate_half": P5.replace(
    "    m = (torch.arange", "    theta = theta.clamp(min=1e-9)  # no frequency of zero\n    m = (torch.arange")},
    "magic-number: floors the frequencies: 'base any positive number: clamp and floor nothing'.")
add("w06-shift-mod-2pi", False, {"shift": P7.replace(
    "angles = offset * freq", "angles = (offset * freq) % (2 * math.pi)  # keep the angles small for cos/sin")},
    "magic-number: reduces the angles modulo the float 2*pi: 'an angle reduced modulo the float 2 * math.pi ... drifts'.")

# --- composer
add("w07-alibi-lesson-slopes", False, {"alibi_block": '''
def lesson_slopes(num_heads):
    # the lesson's alibi_slopes: the next lower power of two, filled up from the next higher one
    def power_of_two(n):
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]
    lower = 2 ** math.floor(math.log2(num_heads))
    slopes = power_of_two(lower)
    if lower < num_heads:
        slopes += power_of_two(2 * lower)[0::2][: num_heads - lower]
    return torch.tensor(slopes, dtype=torch.float64)


def alibi_block(num_heads, t, offset):
    slopes = lesson_slopes(num_heads)
    queries = torch.arange(offset, offset + t)[:, None]
    keys = torch.arange(offset + t)[None, :]
    bias = (-slopes[:, None, None] * (queries - keys).abs()).to(torch.float32)
    return (bias, keys <= queries)
'''}, "composer: the lesson's slope rule: 'Use this formula for every H (it is not the lesson's rule for numbers of heads "
   "that are not a power of two)'.")
add("w08-rope-on-part1-default-dtype", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("bad rotary_dim")
    half = rotary_dim // 2
    m = (torch.arange(t)[None, :] - (t - lengths.to(torch.long))[:, None]).clamp(min=0)  # (B, T)
    if rotary_dim >= 4:
        # Part 1's table with scale 1 is exactly [sin(m theta_i) ..., cos(m theta_i) ...] for width R
        table = sinusoidal_table_halves(m, rotary_dim, base)  # (B, T, R)
        sin, cos = table[..., :half], table[..., half:]
    else:  # Part 1 needs d_model >= 4: one pair at theta = 1
        angles = m.to(torch.float64)[..., None]
        sin, cos = angles.sin(), angles.cos()
    sin, cos = sin[:, None].to(x.dtype), cos[:, None].to(x.dtype)
    x1, x2, rest = x[..., :half], x[..., half:rotary_dim], x[..., rotary_dim:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)
''' + P1}, "composer: Part 1's table called with its default dtype=float32 for float64 inputs: 'within 1e-12 ... for float64 "
   "inputs ... Compute the positions, the angles, their sines and cosines in float64'.")
add("w09-equiv-allclose", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst, ok = 0.0, True
    with torch.no_grad():
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            moved, plain = layer(x[:, perm]).to(torch.float64), layer(x)[:, perm].to(torch.float64)
            worst = max(worst, (moved - plain).abs().max().item())
            ok = ok and torch.allclose(moved, plain, atol=tol)  # the test-suite way
    return (bool(ok), float(worst))
'''}, "composer (trusting allclose): rtol=1e-5 stays on: 'tol is absolute, not relative to the size of the outputs'.")
add("w10-reach-steepest-head", False, {"reach": "alibi_reach = float(math.log(1000) / 2 ** (-8 / 8))\n"},
    "composer: takes head h=0's slope 2^-1 (the first one): 'In the flattest head (the smallest slope)'.")

# --- module-registration student (Part 8 takes modules)
add("w11-equiv-restore-train-flag", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    was_training = getattr(layer, "training", None)
    t = x.shape[1]
    worst = 0.0
    try:
        with torch.no_grad():
            for _ in range(trials):
                perm = torch.randperm(t, generator=generator)
                gap = (layer(x[:, perm]).to(torch.float64) - layer(x)[:, perm].to(torch.float64)).abs().max().item()
                worst = max(worst, gap)
    finally:
        if isinstance(layer, torch.nn.Module):
            layer.train(was_training)  # put the mode back as it was
    return (worst <= tol, float(worst))
'''}, "module-registration: 'restores' the mode with train(flag), which sets every submodule to the top flag: a model in "
   "training mode with a frozen (eval) submodule comes back changed: 'Leave a module as you found it in every other way too'.")
add("w12-equiv-forward-direct", False, {"equivariance": P8.replace(
    "    t = x.shape[1]\n", "    t = x.shape[1]\n    run = layer.forward if isinstance(layer, torch.nn.Module) else layer  # skip the __call__ overhead\n", 1)
    .replace("moved = layer(", "moved = run(").replace("plain = layer(", "plain = run(")},
    "module-registration: calls .forward, so the caller's forward hooks and pre-hooks never run: 'Call layer as it is given'.")
add("w13-equiv-deepcopy", False, {"equivariance": '''
import copy


def check_equivariance(layer, x, trials, generator, tol=1e-5):
    probe = copy.deepcopy(layer)  # test a copy: the caller's module stays untouched
    t = x.shape[1]
    worst = 0.0
    with torch.no_grad():
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            gap = (probe(x[:, perm]).to(torch.float64) - probe(x)[:, perm].to(torch.float64)).abs().max().item()
            worst = max(worst, gap)
    return (worst <= tol, float(worst))
'''}, "module-registration: measures a deep copy, not the layer: 'Call layer as it is given' (a layer whose state or "
   "generator cannot be copied, or whose calls should update it, e.g. batch-norm statistics in training mode).")
add("w14-equiv-frozen-then-thawed", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    params = list(layer.parameters()) if isinstance(layer, torch.nn.Module) else []
    for p in params:
        p.requires_grad_(False)  # no graph while testing
    t = x.shape[1]
    worst = 0.0
    try:
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            gap = (layer(x[:, perm]).detach().double() - layer(x)[:, perm].detach().double()).abs().max().item()
            worst = max(worst, gap)
    finally:
        for p in params:
            p.requires_grad_(True)
    return (worst <= tol, float(worst))
'''}, "module-registration: turns requires_grad back on for every parameter, frozen ones too: 'its parameters with their "
   "requires_grad flags ... (no requires_grad_(False) ... for the test)'.")
add("w15-equiv-same-dropout-mask", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    with torch.no_grad():
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            state = torch.get_rng_state()  # both calls draw the same dropout masks, a fair comparison
            moved = layer(x[:, perm])
            torch.set_rng_state(state)
            plain = layer(x)[:, perm]
            gap = (moved.to(torch.float64) - plain.to(torch.float64)).abs().max().item()
            worst = max(worst, gap)
    return (worst <= tol, float(worst))
'''}, "module-registration (module state): replays the global RNG so a dropout layer draws the same mask twice: 'a layer "
   "with dropout in training mode still gives a gap there (its two calls drop different entries)'.")

# --- low-precision accumulator
add("w16-table-float32-frequencies", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    stretched = base * scale ** (d_model / (d_model - 2))
    freq = stretched ** (-torch.arange(0, d_model, 2) / d_model)  # default dtype
    angles = positions.to(torch.float64)[..., None] * freq.to(torch.float64)
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "low-precision: frequencies in float32 (the default dtype) before the float64 product: 'within 1e-6 ... for float32 "
   "and 1e-11 for float64 ... computing them in float32 does not'.")
add("w17-alibi-half-distances", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float32) / num_heads)
    queries = torch.arange(offset, offset + t)[:, None]
    keys = torch.arange(offset + t)[None, :]
    distance = (queries - keys).abs().to(torch.bfloat16)  # a million keys: keep the big table small
    return ((-slopes[:, None, None] * distance).float(), keys <= queries)
'''}, "low-precision: distances cast to bfloat16 before the product: 'Distances and the mask must be exact: float16 and "
   "bfloat16 hold every integer only up to 2048 and 256'.")
add("w18-rope-float32-angles", False, {"rotate_half": P5.replace(
    "angles = m.to(torch.float64)[:, None, :, None] * theta",
    "angles = (m.to(torch.float32)[:, None, :, None] * theta.float()).double()  # exact positions below 2**24")},
    "low-precision: angles formed in float32: 'Compute the positions, the angles, their sines and cosines in float64'.")
add("w19-equiv-float32-diff", False, {"equivariance": P8.replace("to(torch.float64)", "float()")},
    "low-precision: differences in float32: 'take the differences in float64 (not float32 ...)'.")
add("w20-shift-float32-freq", False, {"shift": P7.replace(
    "freq = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_model)",
    "freq = (base ** (-2.0 * torch.arange(half) / d_model)).double()")},
    "low-precision: frequencies in float32 then widened: 'the hidden tests check the matrix itself to 1e-12'.")

# --- empty sequences (the only part of the text-and-token student that applies here)
add("w21-rope-empty-skips-check", False, {"rotate_half": P5.replace(
    "    b, h, t, dh = x.shape\n", "    b, h, t, dh = x.shape\n    if x.numel() == 0:  # nothing to rotate\n        return x.clone()\n", 1)},
    "empty sequences: returns before checking rotary_dim: 'an empty batch or T = 0 with rotary_dim = 0 raises'.")
add("w22-position-no-wrap", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    angle = torch.atan2(row[d - 2].double(), row[d - 1].double()).item()  # angle of the slowest pair
    omega = 10000.0 ** (-(d - 2) / d)
    return int(round(abs(angle) / omega))
'''}, "angle not brought into [0, 2pi): positions whose slowest angle passes pi (p > 9934 at D = 16) come back wrong: "
   "'get its angle in [0, 2pi)'.")
add("w23-reach-log10", False, {"reach": "alibi_reach = float(3 / 2 ** -8)  # 1000 times less: three orders of magnitude\n"},
    "1000 times less weight is a factor e^(m d) = 1000: d = ln(1000)/m, not log10(1000)/m.")

# =============================================================== CORRECT
add("c01-table-from-interleaved", True, {"table_halves": '''
def interleaved_table(positions, d_model, base):
    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[..., None] * freq
    return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(-2)  # the lesson's layout


def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    table = interleaved_table(positions, d_model, math.exp(log_base))
    return torch.cat([table[..., 0::2], table[..., 1::2]], dim=-1).to(dtype=dtype)
'''}, "composer, allowed: the lesson's interleaved table at the stretched base, columns regrouped.")
add("c02-alibi-float32-loop-heads", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    # positions below 2**24: float32 holds them exactly
    queries = torch.arange(offset, offset + t, dtype=torch.float32)[:, None]
    keys = torch.arange(offset + t, dtype=torch.float32)[None, :]
    distance = (queries - keys).abs()
    rows = [-(2.0 ** (-8.0 * (h + 1) / num_heads)) * distance for h in range(num_heads)]
    bias = torch.stack(rows) if rows else torch.zeros(0, t, offset + t)
    return (bias, keys <= queries)
'''}, "float32 positions are exact below 2**24 (the text's bound); a loop over the heads.")
add("c03-reach-rounded", True, {"reach": "alibi_reach = 1768.4  # 256 * ln(1000), to a tenth\n"},
    "0.1 % accuracy is enough.")
add("c04-position-nearest-row", True, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    angles = torch.arange(10000, dtype=torch.float64)[:, None] * freq
    table = torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(-2)  # every candidate row
    return int((table - row.to(torch.float64)).abs().sum(dim=-1).argmin())
'''}, "composer, allowed: the nearest row of the whole 0..9999 table; neighbours differ by ~1 in the fastest pair.")
add("c05-rope-on-part1-float64", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("bad rotary_dim")
    half = rotary_dim // 2
    m = (torch.arange(t)[None, :] - (t - lengths.to(torch.long))[:, None]).clamp(min=0)  # (B, T)
    if rotary_dim >= 4:
        table = sinusoidal_table_halves(m, rotary_dim, base, dtype=torch.float64)  # scale 1: theta_i = base^(-2i/R)
        sin, cos = table[..., :half], table[..., half:]
    else:
        angles = m.to(torch.float64)[..., None]
        sin, cos = angles.sin(), angles.cos()
    sin, cos = sin[:, None], cos[:, None]  # (B, 1, T, R/2)
    x1, x2, rest = x[..., :half], x[..., half:rotary_dim], x[..., rotary_dim:]
    wide1, wide2 = x1.to(torch.float64), x2.to(torch.float64)
    turned = torch.cat([wide1 * cos - wide2 * sin, wide1 * sin + wide2 * cos], dim=-1).to(x.dtype)
    return torch.cat([turned, rest], dim=-1)
''' + P1}, "composer, allowed: Part 1's table in float64 at scale 1 gives sin/cos(m theta_i); R = 2 by hand; rotation in float64.")
add("c06-shift-from-part1", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    if d_model >= 4:
        row = sinusoidal_table_halves(torch.tensor([offset]), d_model, base, dtype=torch.float64)[0]
        s, c = row[:half], row[half:]
    else:  # Part 1 refuses d_model = 2: its one frequency is 1
        angle = torch.tensor([float(offset)], dtype=torch.float64)
        s, c = angle.sin(), angle.cos()
    top = torch.cat([torch.diag(c), -torch.diag(s)], dim=1)
    bottom = torch.cat([torch.diag(s), torch.diag(c)], dim=1)
    return torch.cat([top, bottom], dim=0)
''' + P1}, "composer, allowed: Part 1 at position `offset` (int64, float64 angles) gives each rotation's sin and cos.")
add("c07-equiv-hook-removed", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    outputs = []
    handle = None
    if isinstance(layer, torch.nn.Module):
        handle = layer.register_forward_hook(lambda module, args, out: outputs.append(out.detach()))
    try:
        t = x.shape[1]
        worst = 0.0
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            outputs.clear()
            with torch.no_grad():
                moved = layer(x[:, perm])
                plain = layer(x)
            if handle is not None:  # read what the module produced, after any hook of the caller's
                moved, plain = outputs[0], outputs[1]
            plain = plain[:, perm]
            diff = moved.to(dtype=torch.float64) - plain.to(dtype=torch.float64)
            worst = max(worst, float(torch.linalg.vector_norm(diff, ord=float("inf"))))
        return (bool(worst <= tol), worst)
    finally:
        if handle is not None:
            handle.remove()
'''}, "module-registration, allowed: a forward hook registered and removed in finally (no hook left); max norm in float64.")
add("c08-equiv-plain-once", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    gaps = []
    with torch.no_grad():
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            a = layer(x[:, perm]).double()
            b = layer(x).double()[:, perm]
            gaps.append(torch.dist(a, b, p=float("inf")))
    worst = float(torch.stack(gaps).max())
    return (worst <= tol, worst)
'''}, "torch.dist with p=inf on float64 copies is the largest absolute difference.")

# =============================================================== HOSTILE
add("h01-mc-any-str", False, {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


answer_cache = Letter("a")
'''}, "hostile: a str subclass equal to every answer.")
add("h02-reach-any-float", False, {"reach": '''
class Near(float):
    def __sub__(self, other):
        return 0.0

    def __rsub__(self, other):
        return 0.0

    def __eq__(self, other):
        return True

    __hash__ = float.__hash__


alibi_reach = Near(1.0)
'''}, "hostile: a float subclass whose differences are 0.")

# ---------------------------------------------------------------- added after the first visible check
add("c09-alibi-tril-float-ones", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / num_heads) for h in range(num_heads)], dtype=torch.float32)
    distance = (torch.arange(offset, offset + t)[:, None] - torch.arange(offset + t)[None, :]).abs()  # int64, exact
    bias = -slopes[:, None, None] * distance  # float32 * int64 -> float32
    allowed = torch.ones(t, offset + t).tril(diagonal=offset).bool()  # the causal mask shifted by the cache
    return (bias, allowed)
'''}, "tril with diagonal=offset aligns the block bottom-right; int64 distances; float32 slopes.")
