# Round 25 class sweep, chapter 04 (positional encoding): classes K-P put into the model answer, one variant at a time.
# Class applicability per part: see 04-sweep-verdicts.md.
SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})


# ---------------------------------------------------------------- Part 1: L, O
def table(freq="stretched ** -exponents", positions="positions.to(torch.float64)", prelude=""):
    return prelude + f'''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {{d_model}}")
    stretched = base * scale ** (d_model / (d_model - 2))
    exponents = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model
    angle = {positions}.unsqueeze(-1) * ({freq})
    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
'''


W("L-p1-positions-from-a-table-2-to-20", {"table_halves": table(
    positions="POSITIONS[positions.long()]",
    prelude="POSITIONS = torch.arange(1 << 20, dtype=torch.float64)  # float64 positions, looked up\n")},
  "L: positions read from a float64 table of 2**20 made once; text: int32/int64 positions up to 10**8 and past 2**24")
C("O-p1-exp-log-frequencies", {"table_halves": table(freq="torch.exp(-exponents * math.log(stretched))")},
  "O: frequencies as exp(-e log b'); text fixes no formula")
C("O-p1-reciprocal-frequencies", {"table_halves": table(freq="1.0 / stretched ** exponents")},
  "O: frequencies as 1 / b'**e")
C("O-p1-scale-applied-apart", {"table_halves": table(
    freq="base ** -exponents * scale ** (-exponents * d_model / (d_model - 2))")},
  "O: base and scale raised apart (b**-e * scale**(-e D/(D-2)))")


# ---------------------------------------------------------------- Part 2: L, O
def alibi(slopes="2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)",
          query="torch.arange(offset, offset + t)", key="torch.arange(offset + t)", prelude=""):
    return prelude + f'''
def alibi_block(num_heads, t, offset):
    slopes = {slopes}
    query_pos = ({query})[:, None]
    key_pos = ({key})[None, :]
    distance = (query_pos - key_pos).abs()
    bias = (-slopes[:, None, None] * distance).to(torch.float32)
    return bias, key_pos <= query_pos
'''


W("L-p2-positions-table-2-to-20", {"alibi_block": alibi(
    query="POSITIONS[offset:offset + t]", key="POSITIONS[:offset + t]",
    prelude="POSITIONS = torch.arange(1 << 20)  # built once, sliced per call\n")},
  "L: a table of 2**20 positions made once and sliced; text: offset in the millions, offset + T below 2**24")
W("L-p2-positions-table-2-to-20-per-call", {"alibi_block": alibi(
    query="torch.arange(1 << 20)[offset:offset + t]", key="torch.arange(1 << 20)[:offset + t]")},
  "L: a table of 2**20 positions (per call) sliced; text: offset + T below 2**24")
C("O-p2-slopes-as-powers-of-the-first", {"alibi_block": alibi(
    slopes="(2.0 ** (-8.0 / num_heads)) ** torch.arange(1, num_heads + 1, dtype=torch.float64)")},
  "O: slopes as the first slope to the power h+1")
C("O-p2-slopes-exp2-float32", {"alibi_block": alibi(
    slopes="torch.exp2(-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float32) / num_heads)")},
  "O: slopes with exp2 in float32 (the text allows float32 slopes)")
C("O-p2-slopes-exp-log", {"alibi_block": alibi(
    slopes="torch.exp(-8.0 * math.log(2.0) * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)")},
  "O: slopes as exp(-8 (h+1) log 2 / H)")


# ---------------------------------------------------------------- Part 4: L, O
def position(body):
    return f'''
def position_from_encoding(row):
    d = row.shape[-1]
    slowest = 10000.0 ** (-(d - 2) / d)
    sin, cos = float(row[-2]), float(row[-1])
    angle = math.atan2(sin, cos) % (2 * math.pi)
{body}
'''


W("L-p4-nearest-row-of-8192", {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    p = torch.arange(1 << 13, dtype=torch.float64)[:, None]  # positions 0 .. 8191
    freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    table = torch.stack([(p * freq).sin(), (p * freq).cos()], dim=-1).reshape(-1, d)
    return int((table - row.double()).abs().sum(dim=-1).argmin())
'''}, "L: the nearest row of a table of 2**13 positions; text: 0 <= p < 10000")
C("O-p4-times-reciprocal", {"position": position("    return round(angle * 10000.0 ** ((d - 2) / d))")},
  "O: the angle times the reciprocal of the slowest frequency")
C("O-p4-exp-log", {"position": position("    return round(angle / math.exp(-(d - 2) / d * math.log(10000.0)))")},
  "O: the slowest frequency as exp(log)")
C("O-p4-int-floor-half", {"position": position("    return int(math.floor(angle / slowest + 0.5))")},
  "O: floor(x + 0.5) for round")


# ---------------------------------------------------------------- Part 5: L, O
def rope(theta="base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)",
         rows="torch.arange(t)", prelude=""):
    return prelude + f'''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    t, dh = x.shape[-2:]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError(f"rotary_dim must be even and between 2 and Dh={{dh}}, got {{rotary_dim}}")
    half = rotary_dim // 2
    first_real = t - lengths.long()
    pos = (({rows})[None, :] - first_real[:, None]).clamp(min=0)
    theta = {theta}
    angle = pos.to(torch.float64)[:, None, :, None] * theta
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = angle.cos().to(work), angle.sin().to(work)
    a, b = x[..., :half].to(work), x[..., half:rotary_dim].to(work)
    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)
    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)
'''


W("L-p5-rows-from-a-table-2-to-16", {"rotate_half": rope(
    rows="ROWS[:t]", prelude="ROWS = torch.arange(1 << 16)  # built once, sliced per call\n")},
  "L: row indices from a table of 2**16 made once and sliced; text bounds no T")
W("L-p5-rows-from-a-table-2-to-20", {"rotate_half": rope(
    rows="ROWS[:t]", prelude="ROWS = torch.arange(1 << 20)  # built once, sliced per call\n")},
  "L: row indices from a table of 2**20 made once and sliced; text bounds no T")
C("O-p5-theta-exp-log", {"rotate_half": rope(
    theta="torch.exp(-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim * math.log(base))")},
  "O: theta as exp(-2i/R log base)")
C("O-p5-theta-reciprocal", {"rotate_half": rope(
    theta="1.0 / base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)")},
  "O: theta as 1 / base**(2i/R)")
C("O-p5-theta-as-powers", {"rotate_half": rope(
    theta="(base ** (-2.0 / rotary_dim)) ** torch.arange(0, rotary_dim // 2, dtype=torch.float64)")},
  "O: theta as (base**(-2/R))**i")


# ---------------------------------------------------------------- Part 7: O
def shift(freq="base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)", angle="offset * freq"):
    return f'''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freq = {freq}
    c, s = torch.cos({angle}), torch.sin({angle})
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i], m[i + half, i] = c, s
    m[i, i + half], m[i + half, i + half] = -s, c
    return m
'''


C("O-p7-freq-exp-log", {"shift": shift(
    freq="torch.exp(-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model * math.log(base))")},
  "O: frequencies as exp(-2i/D log base)")
C("O-p7-freq-reciprocal", {"shift": shift(
    freq="1.0 / base ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)")},
  "O: frequencies as 1 / base**(2i/D)")
C("O-p7-freq-as-powers", {"shift": shift(
    freq="(base ** (-2.0 / d_model)) ** torch.arange(0, d_model // 2, dtype=torch.float64)")},
  "O: frequencies as (base**(-2/D))**i")
C("O-p7-freq-python-math", {"shift": shift(
    freq="torch.tensor([base ** (-2 * i / d_model) for i in range(d_model // 2)], dtype=torch.float64)")},
  "O: frequencies with Python floats, base ** (-2i/D)")


# ---------------------------------------------------------------- Part 8: M, P
def equivariance(gap="(layer(x[:, perm]).double() - reference[:, perm].double()).abs().max().item()",
                 verdict="worst <= tol"):
    return f'''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    with torch.no_grad():
        reference = layer(x)
        gaps = []
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            gaps.append({gap})
    worst = max(gaps)
    return {verdict}, float(worst)
'''


W("M-p8-slack-1e-12", {"equivariance": equivariance(verdict="worst <= tol + 1e-12")},
  "M: an absolute slack of 1e-12 'for rounding' on the comparison; text: a gap above tol fails however little")
W("M-p8-slack-1e-9-difference", {"equivariance": equivariance(verdict="worst - tol < 1e-9")},
  "M: worst - tol < 1e-9; text: a gap above tol fails however little")
W("M-p8-isclose-or-below", {"equivariance": equivariance(verdict="(worst < tol or math.isclose(worst, tol))")},
  "M (relative twin): math.isclose(worst, tol) keeps gaps a relative 1e-9 above tol; text: fails however little")
W("P-p8-nan-to-num-outputs", {"equivariance": equivariance(
    gap="(torch.nan_to_num(layer(x[:, perm]).double()) - torch.nan_to_num(reference[:, perm].double())).abs().max().item()")},
  "P: nan_to_num over the outputs; text: an infinite entry against a finite one differs by inf")
W("P-p8-finite-differences-only", {"equivariance": equivariance(
    gap="(lambda d: d[torch.isfinite(d)].max().item() if torch.isfinite(d).any() else 0.0)((layer(x[:, perm]).double() - reference[:, perm].double()).abs())")},
  "P: infinite differences dropped before the max; text: the gap is then inf, keep it")
W("P-p8-clamped-to-float16-range", {"equivariance": equivariance(
    gap="(layer(x[:, perm]).double().clamp(-65504, 65504) - reference[:, perm].double().clamp(-65504, 65504)).abs().max().item()")},
  "P: outputs clamped to float16's range; text: outputs of any size, an infinite entry gives inf")
