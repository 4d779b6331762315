# Red-team round 11, chapter 04 (positional encoding): blind submissions.
P1 = '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    # slowest frequency b'^(-(D-2)/D) = b^(-(D-2)/D) / scale  =>  b' = b * scale^(D/(D-2))
    stretched = base * scale ** (d_model / (d_model - 2))
    i = torch.arange(d_model // 2, dtype=torch.float64)
    freq = stretched ** (-2.0 * i / d_model)
    angle = positions.to(torch.float64)[..., None] * freq
    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
'''
P2 = '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    q = torch.arange(offset, offset + t)[:, None]
    k = torch.arange(offset + t)[None, :]
    distance = (q - k).abs()
    bias = (-slopes[:, None, None] * distance).to(torch.float32)
    allowed = k <= q
    return bias, allowed
'''
P3 = '''
alibi_reach = 256 * math.log(1000)
'''
P4 = '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    s, c = float(row[d - 2]), float(row[d - 1])
    angle = math.atan2(s, c) % (2 * math.pi)
    return int(round(angle / omega))
'''
P5 = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError(f"bad rotary_dim {r} for head width {dh}")
    pos = torch.arange(t)[None, :] - (t - lengths.to(torch.long))[:, None]   # (B, T)
    pos = pos.clamp(min=0).to(torch.float64)
    theta = base ** (-2.0 * torch.arange(r // 2, dtype=torch.float64) / r)
    angle = pos[..., None] * theta                                             # (B, T, R/2)
    cos, sin = angle.cos()[:, None].to(x.dtype), angle.sin()[:, None].to(x.dtype)
    x1, x2, rest = x[..., : r // 2], x[..., r // 2 : r], x[..., r:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)
'''
P6 = '''
answer_cache = "b"
'''
P7 = '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    n = d_model // 2
    freq = base ** (-2.0 * torch.arange(n, dtype=torch.float64) / d_model)
    c, s = (offset * freq).cos(), (offset * freq).sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(n)
    m[i, i], m[i, i + n], m[i + n, i], m[i + n, i + n] = c, -s, s, c
    return m
'''
P8 = '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    reference = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).double() - reference[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    return worst <= tol, float(worst)
'''
DEFAULT = {"table_halves": P1, "alibi_block": P2, "reach": P3, "position": P4, "rotate_half": P5, "mc": P6,
           "shift": P7, "equivariance": P8}

SUBMISSIONS = []
def W(name, gid, code, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": {gid: code}, "why": why})
def C(name, gid, code, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": {gid: code}, "why": why})
def Hst(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why, "hostile": True})

# ---------------------------------------------------------------- wrong answers
W("p1_exponent_for_D4_only", "table_halves", P1.replace("stretched = base * scale ** (d_model / (d_model - 2))",
  "stretched = base * scale ** (d_model / 2)"),
  "'Work out which base does that (it depends on D)': scale^(D/2) equals scale^(D/(D-2)) only at D = 4, the visible width")
W("p1_positions_1d_only", "table_halves", P1.replace("angle = positions.to(torch.float64)[..., None] * freq",
  "angle = positions.to(torch.float64)[:, None] * freq"),
  "'positions is an integer tensor of any shape (...) (one position, a row (T,), the positions (B, T)...)' ((1,1) passes, 0-d and (B,T) do not)")
W("p2_lesson_slopes", "alibi_block", '''
def alibi_block(num_heads, t, offset):
    def power_of_two(n):
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]
    lower = 2 ** math.floor(math.log2(num_heads))
    slopes = power_of_two(lower)
    if lower < num_heads:
        slopes += power_of_two(2 * lower)[0::2][: num_heads - lower]
    slopes = torch.tensor(slopes, dtype=torch.float64)
    q = torch.arange(offset, offset + t)[:, None]
    k = torch.arange(offset + t)[None, :]
    bias = (-slopes[:, None, None] * (q - k).abs()).to(torch.float32)
    return bias, k <= q
''', "'Use this formula for every H (it is not the lesson's rule for numbers of heads that are not a power of two)'")
W("p2_precedence_slopes", "alibi_block", P2.replace(
  "slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)",
  "slopes = torch.tensor([2.0 ** (-8.0 / num_heads) ** (h + 1) for h in range(num_heads)], dtype=torch.float64)"),
  "'the slopes m_h = 2^{-8(h+1)/H}' (2 ** a ** b is 2 ** (a ** b); the visible test checks head 0 only)")
W("p2_float_mask", "alibi_block", P2.replace("allowed = k <= q", "allowed = (k <= q).float()"),
  "'allowed, boolean' (a float 0/1 mask: tolist() == [[True, ...]] still holds)")
W("p2_full_square_then_slice", "alibi_block", '''
def alibi_block(num_heads, t, offset):
    n = offset + t
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    pos = torch.arange(n)
    distance = (pos[:, None] - pos[None, :]).abs()                 # (n, n), the lesson's square bias
    full = (-slopes[:, None, None] * distance).to(torch.float32)
    bias = full[:, offset:].clone()
    allowed = torch.ones(n, n, dtype=torch.bool).tril()[offset:].clone()
    return bias, allowed
''', "'offset + T stays below 2^24' with 'the caller ... each must have memory of its own': builds the (offset+T)^2 square and slices T rows (a single token after a long cache needs terabytes)")
W("p3_log2", "reach", "alibi_reach = 256 * math.log2(1000)\n",
  "'1000 times less attention weight': softmax weights are exp(score), so the natural log (log2 gives 2551 instead of 1768)")
W("p3_steepest_head", "reach", "alibi_reach = math.log(1000) / 2 ** (-8 / 8)\n",
  "'In the flattest head (the smallest slope)': uses m_0 = 2^-1, the steepest")
W("p4_atan2_no_wrap", "position", P4.replace("angle = math.atan2(s, c) % (2 * math.pi)", "angle = math.atan2(s, c)"),
  "'get its angle in [0, 2pi)': atan2 gives (-pi, pi], so for D = 16 positions 9935..9999 (angle past pi) come back negative")
W("p4_truncate", "position", P4.replace("return int(round(angle / omega))", "return int(angle / omega)"),
  "'Return p ... it must be exact for float32 rows too' (truncation turns 1233.9999 into 1233)")
W("p5_dh_in_exponent", "rotate_half", P5.replace("theta = base ** (-2.0 * torch.arange(r // 2, dtype=torch.float64) / r)",
  "theta = base ** (-2.0 * torch.arange(r // 2, dtype=torch.float64) / dh)"),
  "'theta_i = base^{-2i/R} (R, not Dh, in the exponent)' (R = 2 has only theta_0 = 1 either way)")
W("p5_adjacent_pairs", "rotate_half", '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError(f"bad rotary_dim {r} for head width {dh}")
    pos = (torch.arange(t)[None, :] - (t - lengths.to(torch.long))[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2.0 * torch.arange(r // 2, dtype=torch.float64) / r)
    angle = pos[..., None] * theta
    cos, sin = angle.cos()[:, None].to(x.dtype), angle.sin()[:, None].to(x.dtype)
    even, odd = x[..., 0:r:2], x[..., 1:r:2]
    rotated = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)
    return torch.cat([rotated, x[..., r:]], dim=-1)
''', "'feature i is paired with feature i + R/2 (\"rotate half\")' (the lesson's adjacent pairs; R = 2 cannot tell)")
W("p5_pair_with_half_head", "rotate_half", '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError(f"bad rotary_dim {r} for head width {dh}")
    pos = (torch.arange(t)[None, :] - (t - lengths.to(torch.long))[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2.0 * torch.arange(r // 2, dtype=torch.float64) / r)
    angle = pos[..., None] * theta
    cos, sin = angle.cos()[:, None].to(x.dtype), angle.sin()[:, None].to(x.dtype)
    half = dh // 2
    out = x.clone()
    idx = torch.arange(r // 2)
    a, bb = x[..., idx], x[..., idx + half]
    out[..., idx] = a * cos - bb * sin
    out[..., idx + half] = a * sin + bb * cos
    return out
''', "'feature i is paired with feature i + R/2' (pairs with i + Dh//2; for R = 2, Dh = 3 both are 1)")
W("p6_relative_only", "mc", 'answer_cache = "a"\n', "(b) is right: cached keys were rotated at their true positions, the queries at shifted ones")
W("p7_interleaved_layout", "shift", '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    c, s = (offset * freq).cos(), (offset * freq).sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(0, d_model, 2)
    m[i, i], m[i, i + 1], m[i + 1, i], m[i + 1, i + 1] = c, -s, s, c
    return m
''', "'for the sines-first table of Part 1' (the lesson's interleaved matrix; identical at D = 2)")
W("p8_float16_gap", "equivariance", P8.replace(
  "gap = (layer(x[:, perm]).double() - reference[:, perm].double()).abs().max().item()",
  "gap = (layer(x[:, perm]) - reference[:, perm]).abs().max().item()"),
  "'the gap is the largest absolute difference': a float16 layer's difference is rounded (or overflows to inf past 65504) in float16")
W("p8_float32_compare", "equivariance", P8.replace("return worst <= tol, float(worst)",
  "return bool(torch.tensor(worst, dtype=torch.float32) <= tol), float(worst)"),
  "'True exactly when worst <= tol ... one above it fails however little' (compared in float32, a gap just above tol rounds onto it) [closed class: thresholds]")

# ---------------------------------------------------------------- correct answers
C("p1_polar_complex", "table_halves", '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    half = d_model // 2
    log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    freq = torch.exp(-log_base * torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angle = torch.einsum("...,f->...f", positions.double(), freq)
    z = torch.polar(torch.ones_like(angle), angle)
    out = torch.empty(*angle.shape[:-1], d_model, dtype=torch.float64)
    out[..., :half] = z.imag
    out[..., half:] = z.real
    return out.to(dtype=dtype)
''', "log-space base, einsum, complex polar, in-place fill of its own buffer")
C("p2_exp2_where", "alibi_block", '''
def alibi_block(num_heads, t, offset):
    h = torch.arange(num_heads, dtype=torch.float64)
    slopes = torch.exp2(-8.0 * (h + 1) / num_heads)
    rows = torch.arange(t).unsqueeze(1) + offset
    cols = torch.arange(offset + t).unsqueeze(0)
    diff = rows - cols
    distance = torch.where(diff >= 0, diff, -diff)
    bias = torch.empty(num_heads, t, offset + t, dtype=torch.float32)
    for head in range(num_heads):
        bias[head] = -(slopes[head] * distance)
    allowed = torch.ge(diff, 0)
    return bias, allowed
''', "exp2 slopes, torch.where absolute value, a loop over heads into its own buffer")
C("p3_closed_form", "reach", "alibi_reach = float(math.log(1000.0) / 2.0 ** -8)\n", "ln(1000) / m_min")
C("p4_complex_angle", "position", '''
def position_from_encoding(row):
    d = row.numel()
    pair = row.to(torch.float64)[-2:]
    z = torch.complex(pair[1], pair[0])          # cos + i sin
    angle = torch.angle(z).item()
    if angle < 0:
        angle += 2 * math.pi
    omega = math.exp(-math.log(10000.0) * (d - 2) / d)
    return round(angle / omega)
''', "torch.angle of a complex number, wrap by hand, round() to an int")
C("p5_via_table_halves", "rotate_half", '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh, t = x.shape[-1], x.shape[-2]
    if rotary_dim % 2 != 0 or not 2 <= rotary_dim <= dh:
        raise ValueError("rotary_dim must be even and in [2, Dh]")
    half = rotary_dim // 2
    start = t - lengths.long()                                       # first real row
    positions = torch.clamp(torch.arange(t).unsqueeze(0) - start.unsqueeze(1), min=0)   # (B, T) int64
    # Part 1's table with D' = 2R and base^2 has the frequencies (base^2)^(-2i/2R) = base^(-2i/R) for i < R
    table = sinusoidal_table_halves(positions, 2 * rotary_dim, base=base ** 2, dtype=torch.float64)
    sin, cos = table[..., :half].unsqueeze(1), table[..., rotary_dim : rotary_dim + half].unsqueeze(1)
    x64 = x.double()
    a, b = x64[..., :half], x64[..., half:rotary_dim]
    out = torch.cat((a * cos - b * sin, a * sin + b * cos, x64[..., rotary_dim:]), dim=-1)
    return out.to(x.dtype)
''', "sines/cosines from Part 1's function (positions (B, T), D' = 2R, base^2, dtype by keyword); rotation in float64, cast back")
C("p7_via_table_halves", "shift", '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    n = d_model // 2
    if d_model >= 4:
        row = sinusoidal_table_halves(torch.tensor(offset), d_model, base, dtype=torch.float64)   # 0-d position
        s, c = row[:n], row[n:]
    else:  # one frequency, 1: Part 1's D = 4 table has it as its fastest pair
        row = sinusoidal_table_halves(torch.tensor(offset), 4, dtype=torch.float64)
        s, c = row[:1], row[2:3]
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    m[:n, :n] = torch.diag(c)
    m[:n, n:] = -torch.diag(s)
    m[n:, :n] = torch.diag(s)
    m[n:, n:] = torch.diag(c)
    return m
''', "sin(k w), cos(k w) read from Part 1's table at the 0-d position k (negative too), blocks with diag")
C("p8_stack_all", "equivariance", '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.size(1)
    perms = [torch.randperm(t, generator=generator) for _ in range(trials)]
    base = layer(x).to(torch.float64)
    gaps = torch.stack([(layer(x[:, p]).to(torch.float64) - base[:, p]).abs().amax() for p in perms])
    worst = float(gaps.max())
    equivariant = bool(worst <= tol)
    return equivariant, worst
''', "all permutations first, gaps in float64 stacked, amax")
C("p3_via_alibi_block", "reach", "bias, _ = alibi_block(8, 1, 1)\nalibi_reach = math.log(1000) / -float(bias[-1, 0, 0])\n",
  "the flattest slope read from Part 2's function on a single query at offset 1")
C("p6_upper", "mc", 'answer_cache = "B".lower()\n', "computed string")
C("p2_keyword_broadcast", "alibi_block", '''
def alibi_block(num_heads, t, offset):
    key = torch.arange(offset + t).view(1, 1, -1)
    query = torch.arange(start=offset, end=offset + t).view(1, -1, 1)
    slopes = torch.pow(2.0, torch.arange(1, num_heads + 1, dtype=torch.float64) * (-8.0 / num_heads)).view(-1, 1, 1)
    bias = torch.abs(query - key).mul(slopes).neg().float()
    allowed = (key <= query)[0]
    return bias, allowed.contiguous()
''', "pow on a scalar base, 3-d broadcasting, neg()")

# ---------------------------------------------------------------- hostile
Hst("hostile_float_subclass", {"reach": '''
class Reach(float):
    def __eq__(self, other): return True
    def __gt__(self, other): return True
    def __lt__(self, other): return True
    def __le__(self, other): return True
    def __ge__(self, other): return True
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __abs__(self): return 0.0
    __hash__ = float.__hash__
alibi_reach = Reach(1.0)
'''}, "a float subclass that compares equal to everything")
Hst("hostile_frame_snoop", {"equivariance": '''
import sys
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    frame = sys._getframe(1)
    while frame is not None:   # borrow the grader's own reference if one is lying around
        for space in (frame.f_locals, frame.f_globals):
            for name, value in list(space.items()):
                if name != "check_equivariance" and "equivariance" in name and callable(value):
                    return value(layer, x, trials, generator, tol)
                if isinstance(value, dict) and callable(value.get("check_equivariance")) and value.get("check_equivariance") is not check_equivariance:
                    return value["check_equivariance"](layer, x, trials, generator, tol)
        frame = frame.f_back
    t = x.shape[1]
    worst = 0.0
    ref = layer(x)
    for _ in range(trials):
        p = torch.randperm(t, generator=generator)
        worst = max(worst, (layer(x[:, p]) - ref[:, p]).abs().max().item())
    return worst <= tol, worst
'''}, "walks the caller's frames for the grader's reference function")
Hst("hostile_marshal_numpy", {"position": '''
import importlib
np = importlib.import_module("numpy")
def position_from_encoding(row):
    r = np.asarray(row.tolist(), dtype=np.float64)
    d = r.shape[0]
    return int(round((np.arctan2(r[-2], r[-1]) % (2 * np.pi)) / 10000.0 ** (-(d - 2) / d)))
'''}, "NumPy through importlib, against the rule")
