# Red team 19, class sweep of chapter 04 (positional encoding): the classes of BRIEF-SWEEP.md, one variant of the
# model answer at a time. Class letters in each name and "why".
SUBMISSIONS = []


def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})


def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})


TABLE = '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    stretched = base * scale ** (d_model / (d_model - 2))
    exponents = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model
    POS
    angle = pos.unsqueeze(-1) * stretched ** -exponents
    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
'''


def table(pos):
    return {"table_halves": TABLE.replace("POS", pos)}


ALIBI = '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    QK
    distance = (query_pos - key_pos).abs()
    bias = (-slopes[:, None, None] * distance).to(torch.float32)
    return bias, key_pos <= query_pos
'''
QK0 = "query_pos = torch.arange(offset, offset + t)[:, None]\n    key_pos = torch.arange(offset + t)[None, :]"


def alibi(qk=QK0):
    return {"alibi_block": ALIBI.replace("QK", qk)}


ROPE = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    t, dh = x.shape[-2:]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError(f"rotary_dim must be even and between 2 and Dh={dh}, got {rotary_dim}")
    half = rotary_dim // 2
    POS
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    angle = pos.to(torch.float64)[:, None, :, None] * theta
    work = WORK
    cos, sin = angle.cos().to(work), angle.sin().to(work)
    a, b = x[..., :half].to(work), x[..., half:rotary_dim].to(work)
    ROT
    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)
'''
POS0 = ("first_real = t - lengths.long()\n"
        "    pos = (torch.arange(t)[None, :] - first_real[:, None]).clamp(min=0)")
WORK0 = "torch.float64 if x.dtype == torch.float64 else torch.float32"
ROT0 = "rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)"


def rope(pos=POS0, work=WORK0, rot=ROT0, extra=""):
    return {"rotate_half": ROPE.replace("POS", pos).replace("WORK", work).replace("ROT", rot)
            .replace("    def_extra", extra)}


EQ = '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    with torch.no_grad():
        reference = layer(x)
        gaps = []
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            GAP
    worst = max(gaps)
    return worst <= tol, float(worst)
'''


def eq(gap):
    return {"equivariance": EQ.replace("GAP", gap)}


# ---------------- A: half precision past 65504 ----------------
W("A1-table-angles-in-half-dtype", table("pos = positions.to(dtype).to(torch.float64) if dtype in (torch.float16, torch.bfloat16) "
                                         "else positions.to(torch.float64)"),
  "A/C: Part 1 'convert the positions to float64, not to dtype' (int32 positions past 65504 are inf in float16)")
W("A2-equivariance-difference-in-output-dtype",
  eq("gaps.append((layer(x[:, perm]) - reference[:, perm]).abs().max().double().item())"),
  "A: Part 8 'take the differences in float64' (float16 outputs: a difference past 65504 is inf)")
W("A3-equivariance-float32-difference",
  eq("gaps.append((layer(x[:, perm]).float() - reference[:, perm].float()).abs().max().item())"),
  "A: Part 8, differences in float32 (float64 outputs past 3e38 overflow; float16 ones fine)")
C("A-ok-rope-rotate-in-half", rope(work="x.dtype if x.dtype != torch.float64 and x.dtype != torch.float32 else "
                                        "(torch.float64 if x.dtype == torch.float64 else torch.float32)"),
  "A: Part 5 'rotate in the dtype of x or wider': float16/bfloat16 rotated in their own dtype")

# ---------------- B: largest absolute value or norm through squares ----------------
W("B1-equivariance-root-of-largest-square",
  eq("gaps.append((layer(x[:, perm]).double() - reference[:, perm].double()).pow(2).amax().sqrt().item())"),
  "B: Part 8 'not the square root of the largest square' (the closed N5 slip)")
W("B2-equivariance-norm-inf-of-squares",
  eq("d = layer(x[:, perm]).double() - reference[:, perm].double()\n"
     "            gaps.append(float(torch.linalg.vector_norm(d * d, ord=float('inf')) ** 0.5))"),
  "B: Part 8, vector_norm(inf) of the squares, then the root")
C("B-ok-equivariance-vector-norm-inf",
  eq("gaps.append(torch.linalg.vector_norm(layer(x[:, perm]).double() - reference[:, perm].double(), "
     "ord=float('inf')).item())"),
  "B: vector_norm(ord=inf) is the largest absolute value, no squares")
W("B3-rope-polar-form-through-squares",
  rope(rot="r = torch.sqrt(a * a + b * b)\n"
           "    phi = torch.atan2(b, a)\n"
           "    rotated = torch.cat([r * (cos * torch.cos(phi) - sin * torch.sin(phi)), "
           "r * (sin * torch.cos(phi) + cos * torch.sin(phi))], dim=-1).to(x.dtype)"),
  "B: Part 5 'x with values of any size': the pair's modulus through squares overflows past 1e154 (float64)")

# ---------------- C: rounding boundary at one alignment ----------------
W("C1-table-positions-through-float32", table("pos = positions.to(torch.float32).to(torch.float64)"),
  "C: Part 1 'do not pass the positions through float32 on their way to float64'")
W("C2-table-positions-through-float32-one-based",
  table("pos = (positions.to(torch.float64) + 1).to(torch.float32).to(torch.float64) - 1"),
  "C: Part 1, the same through float32, shifted by one (exact at 2**24 + 1, wrong at 2**24 + 2)")
W("C3-alibi-positions-in-bfloat16-one-based",
  alibi("query_pos = torch.arange(offset + 1, offset + t + 1, dtype=torch.bfloat16)[:, None].double()\n"
        "    key_pos = torch.arange(1, offset + t + 1, dtype=torch.bfloat16)[None, :].double()"),
  "C: Part 2 'keep positions as integers' (bfloat16, one-based)")
W("C4-alibi-positions-in-float16-zero-based",
  alibi("query_pos = torch.arange(offset, offset + t, dtype=torch.float16)[:, None].double()\n"
        "    key_pos = torch.arange(offset + t, dtype=torch.float16)[None, :].double()"),
  "C: Part 2 'keep positions as integers' (float16, zero-based)")
W("C5-alibi-positions-in-float16-one-based",
  alibi("query_pos = torch.arange(offset + 1, offset + t + 1, dtype=torch.float16)[:, None].double()\n"
        "    key_pos = torch.arange(1, offset + t + 1, dtype=torch.float16)[None, :].double()"),
  "C: Part 2 (float16, one-based)")
W("C6-rope-positions-in-x-dtype-one-based",
  rope(pos="first_real = t - lengths.long()\n"
           "    pos = (torch.arange(1, t + 1).to(x.dtype)[None, :] - (first_real[:, None] + 1).to(x.dtype)).clamp(min=0)"),
  "C: Part 5 'bfloat16 and float16 do not hold every position past 256 and 2048' (positions in x's dtype, one-based)")
W("C7-rope-positions-in-x-dtype-zero-based",
  rope(pos="first_real = t - lengths.long()\n"
           "    pos = (torch.arange(t).to(x.dtype)[None, :] - first_real[:, None].to(x.dtype)).clamp(min=0)"),
  "C: Part 5, zero-based")

# ---------------- D: counts in a narrow integer type ----------------
W("D1-rope-lengths-to-uint8", rope(pos="first_real = t - lengths.to(torch.uint8).long()\n"
                                       "    pos = (torch.arange(t)[None, :] - first_real[:, None]).clamp(min=0)"),
  "D: Part 5 'lengths of any integer dtype', T past 255: a length of 256 kept in uint8 is 0")
W("D2-rope-positions-by-uint8-cumsum",
  rope(pos="real = torch.arange(t)[None, :] >= t - lengths.long()[:, None]\n"
           "    pos = (real.cumsum(-1, dtype=torch.uint8).long() - 1).clamp(min=0)"),
  "D: Part 5, positions counted with a uint8 cumsum of the real rows: wraps after 256 real rows")
W("D3-rope-positions-by-int16-cumsum-of-uint8-mask",
  rope(pos="real = (torch.arange(t)[None, :] >= t - lengths.long()[:, None]).to(torch.uint8)\n"
           "    pos = (real.cumsum(-1).long() - 1).clamp(min=0)"),
  "D?: cumsum of a uint8 mask (torch promotes integer cumsums to int64: correct?)")
SUBMISSIONS[-1]["correct"] = True
C("D-ok-rope-positions-by-cumsum",
  rope(pos="real = torch.arange(t)[None, :] >= t - lengths.long()[:, None]\n"
           "    pos = (real.long().cumsum(-1) - 1).clamp(min=0)"),
  "D: positions counted with an int64 cumsum: correct")
W("D4-table-positions-in-int16-arithmetic", table("pos = (positions.to(torch.int16) if positions.dtype in (torch.uint8, torch.int8) "
                                                  "else positions).to(torch.float64)"),
  "D?: Part 1, uint8/int8 positions widened to int16 first (no arithmetic: correct)")
SUBMISSIONS[-1]["correct"] = True

# ---------------- E: intermediate along the wrong axis ----------------
W("E1-alibi-square-table-sliced",
  alibi("key_pos = torch.arange(offset + t)[None, :]\n"
        "    query_pos = torch.arange(offset + t)[:, None]\n"
        "    full = (query_pos - key_pos).abs()[offset:]\n"
        "    query_pos = query_pos[offset:]\n"
        "    key_pos = key_pos\n"
        "    distance0 = full"),
  "E: Part 2 'no (offset + T, offset + T) table sliced down to its last T rows'")
SUBMISSIONS[-1]["cells"]["alibi_block"] = SUBMISSIONS[-1]["cells"]["alibi_block"].replace(
    "distance = (query_pos - key_pos).abs()", "distance = distance0")
W("E2-table-from-full-table-indexed", table("n = int(positions.max()) + 1 if positions.numel() else 0\n"
                                            "    pos = torch.arange(n, dtype=torch.float64)[positions.long()] if n else "
                                            "positions.to(torch.float64)"),
  "E: Part 1, a table of every position up to the largest, indexed (positions up to 1e8: 800 MB per column)")

# ---------------- H: sizes from .max() of rows with no positions ----------------
W("H1-table-size-from-max", table("n = int(positions.max()) + 1\n"
                                  "    pos = torch.arange(n, dtype=torch.float64)[positions.long()]"),
  "H: Part 1 'an empty positions gives an empty table' (.max() of no positions raises)")
W("H2-rope-no-rotation-shortcut-from-max",
  rope(pos="if int(lengths.max()) <= 1:\n"
           "        return x.clone()\n"
           "    first_real = t - lengths.long()\n"
           "    pos = (torch.arange(t)[None, :] - first_real[:, None]).clamp(min=0)"),
  "H: Part 5 'B = 0 ... nothing raised': the every-row-at-position-0 shortcut takes .max() of an empty batch")
W("H3-rope-first-real-from-longest",
  rope(pos="first_real = lengths.long().max() - lengths.long() if lengths.numel() else lengths.long()\n"
           "    pos = (torch.arange(t)[None, :] - first_real[:, None]).clamp(min=0)"),
  "H: Part 5, padding counted from the longest sentence (assumes the longest fills T)")
