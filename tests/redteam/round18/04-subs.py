# Red team round 18, chapter 04 (positional encodings). Kinds of student: type-sloppy (TS),
# dtype/device generaliser (DG) students; hostile (HOS).

BASE = {
"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    stretched = base * scale ** (d_model / (d_model - 2))
    half = d_model // 2
    freq = stretched ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[..., None] * freq
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
''',
"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    q = torch.arange(offset, offset + t)[:, None]
    k = torch.arange(offset + t)[None, :]
    dist = (q - k).abs().to(torch.float64)
    bias = (-slopes[:, None, None] * dist).to(torch.float32)
    return bias, k <= q
''',
"reach": '''
alibi_reach = 256 * math.log(1000)
''',
"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    i = d // 2 - 1
    s, c = float(row[2 * i]), float(row[2 * i + 1])
    angle = math.atan2(s, c) % (2 * math.pi)
    return int(round(angle / 10000.0 ** (-2 * i / d)))
''',
"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    half = r // 2
    pad = t - lengths.to(torch.int64)
    m = (torch.arange(t)[None, :] - pad[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / r)
    angles = m[:, None, :, None] * theta
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x1, x2, rest = x[..., :half], x[..., half:r], x[..., r:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)
''',
"mc": '''
answer_cache = "b"
''',
"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    freq = base ** (-2.0 * torch.arange(h, dtype=torch.float64) / d_model)
    angles = offset * freq
    c, s = angles.cos(), angles.sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(h)
    m[i, i] = c
    m[i + h, i] = s
    m[i, i + h] = -s
    m[i + h, i + h] = c
    return m
''',
"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).to(torch.float64) - layer(x)[:, perm].to(torch.float64)).abs().max().item()
        worst = max(worst, gap)
    return worst <= tol, float(worst)
''',
}

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

def replace(cell, old, new, count=1):
    src = BASE[cell]
    assert src.count(old) >= 1, (cell, old)
    return src.replace(old, new, count)

SUBMISSIONS = [
# ---------------------------------------------------------------- wrong: type-sloppy
sub("TS-p1-float-count-arange", False, {"table_halves": replace("table_halves",
    "freq = stretched ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_model)",
    "freq = stretched ** (-2.0 * torch.arange(d_model / 2) / d_model)")},
    "Part 1: 'within 1e-6 of the exact values for float32 and 1e-11 for float64' (arange of a float count "
    "is float32, so the frequencies' exponents are rounded)."),
sub("TS-p2-uint8-mask", False, {"alibi_block": replace("alibi_block",
    "return bias, k <= q", "return bias, (k <= q).to(torch.uint8)")},
    "Part 2: 'allowed, boolean' (a 0/1 uint8 mask; its tolist() equals the booleans)."),
sub("TS-p3-int-distance", False, {"reach": "alibi_reach = int(256 * math.log(1000))\n"},
    "Part 3: 'a Python float, not an int nor a tensor'."),
sub("TS-p4-item-of-round", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    i = d // 2 - 1
    row = row.to(torch.float64)
    angle = torch.atan2(row[2 * i], row[2 * i + 1]) % (2 * math.pi)
    return torch.round(angle / 10000.0 ** (-2 * i / d)).item()
'''}, "Part 4: 'Return p as a Python int' (item() of a float64 tensor is a float, 42.0 == 42)."),
sub("TS-p5-int-arange-division", False, {"rotate_half": replace("rotate_half",
    "theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / r)",
    "theta = base ** (-2 * torch.arange(half) / r)")},
    "Part 5: 'within 1e-12 ... for float64' and 'Compute ... the angles ... in float64' (int64 arange divided "
    "by an int is float32)."),
sub("TS-p5-return-x-when-nothing-turns", False, {"rotate_half": replace("rotate_half",
    "    half = r // 2\n",
    "    half = r // 2\n    if bool((lengths <= 1).all()):\n        return x  # every row at position 0: nothing to rotate\n")},
    "Part 5: 'Return a new tensor ..., never x itself or a view of it, even when no row is rotated'."),
sub("TS-p7-int-arange-division", False, {"shift": replace("shift",
    "freq = base ** (-2.0 * torch.arange(h, dtype=torch.float64) / d_model)",
    "freq = base ** (-2 * torch.arange(h) / d_model)").replace("c, s = angles.cos(), angles.sin()",
    "c, s = angles.cos().to(torch.float64), angles.sin().to(torch.float64)")},
    "Part 7: 'the hidden tests check the matrix itself to 1e-12' (float32 exponents)."),
sub("TS-p8-tensor-worst", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = torch.zeros((), dtype=torch.float64)
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max()
        worst = torch.maximum(worst, gap)
    return bool(worst <= tol), worst
'''}, "Part 8: 'worst a Python float' (a 0-d tensor)."),
# ---------------------------------------------------------------- wrong: autograd-careless
sub("AC-p5-detached-clone-base", False, {"rotate_half": replace("rotate_half",
    "    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)",
    "    out = x.detach().clone()\n    out[..., :half] = x1 * cos - x2 * sin\n    out[..., half:r] = x1 * sin + x2 * cos\n    return out")},
    "Part 5: 'Gradients must flow through the result ... compare its gradient with respect to x' (the "
    "pass-through features' gradient is lost)."),
sub("AC-p5-nothing-turns-detached", False, {"rotate_half": replace("rotate_half",
    "    half = r // 2\n",
    "    half = r // 2\n    if bool((lengths <= 1).all()):\n        return x.detach().clone()  # no rotation: a plain copy\n")},
    "Part 5: 'compare its gradient with respect to x with the reference's, also where no row turns'."),
sub("AC-p5-in-place-on-x", False, {"rotate_half": replace("rotate_half",
    "    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)",
    "    new1, new2 = x1 * cos - x2 * sin, x1 * sin + x2 * cos\n    out = x.clone()\n    x[..., :half].copy_(new1) if False else None\n"
    "    out[..., :half], out[..., half:r] = new1, new2\n    return out")},
    "placeholder"),
sub("AC-p8-eval-left", False, {"equivariance": replace("equivariance",
    "    t = x.shape[1]\n",
    "    t = x.shape[1]\n    if isinstance(layer, torch.nn.Module):\n        layer.eval()  # no dropout while testing\n")},
    "Part 8: 'the gap is the largest absolute difference between layer(x[:, perm]) and layer(x)[:, perm]' "
    "(the layer as given: switched to eval mode and left there, the caller's model is changed)."),
sub("AC-p8-grad-disabled", False, {"equivariance": replace("equivariance",
    "    t = x.shape[1]\n", "    t = x.shape[1]\n    torch.set_grad_enabled(False)  # no gradients needed for a test\n")},
    "Intro: 'Leave torch's process-wide settings as you found them ... the grad mode'."),
# ---------------------------------------------------------------- wrong: stateful
sub("ST-p1-cache-without-scale", False, {"table_halves": '''
FREQS = {}

def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    key = (d_model, scale)
    if key not in FREQS:
        stretched = base * scale ** (d_model / (d_model - 2))
        FREQS[key] = stretched ** (-2.0 * torch.arange(d_model // 2, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[..., None] * FREQS[key]
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "Intro: 'A function may not keep anything from one call to the next'; Part 1's base (frequencies cached, keyed on D and scale "
      "but not on the base)."),
sub("ST-p2-lru-returns-same", False, {"alibi_block": "import functools\n\n@functools.lru_cache(maxsize=None)\n" + BASE["alibi_block"].lstrip()},
    "Part 2: 'The caller may change bias and allowed in place: each must have memory of its own'."),
sub("ST-p4-lru-on-row", False, {"position": "import functools\n\n@functools.lru_cache(maxsize=None)\n" + BASE["position"].lstrip()},
    "Intro: 'A function may not keep anything from one call to the next' (a tensor hashes by identity: a "
    "row changed in place and read again gets the old answer)."),
sub("ST-p8-copied-generator", False, {"equivariance": replace("equivariance",
    "    worst = 0.0\n",
    "    worst = 0.0\n    generator_copy = torch.Generator()\n    generator_copy.set_state(generator.get_state())  # leave the caller's generator alone\n    generator = generator_copy\n")},
    "Part 8: 'Draw trials permutations one after another, each with torch.randperm(T, generator=generator)' "
    "(drawn from a copy, the caller's generator does not move)."),
sub("ST-p8-cached-baseline", False, {"equivariance": '''
BASELINES = {}

def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    key = (id(layer), tuple(x.shape), x.dtype)
    if key not in BASELINES:  # layer(x) is the same for every permutation: compute it once
        BASELINES[key] = layer(x).detach()
    base = BASELINES[key]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        worst = max(worst, (layer(x[:, perm]).double() - base[:, perm].double()).abs().max().item())
    return worst <= tol, float(worst)
'''}, "Intro: 'A function may not keep anything from one call to the next' (layer(x) of the first x reused "
      "for the next x of the same shape)."),
sub("ST-p7-lru-shared-matrix", False, {"shift": "import functools\n\n@functools.lru_cache(maxsize=64)\n" + BASE["shift"].lstrip()},
    "Part 7: 'it must have memory of its own, not be a matrix kept from an earlier call'."),
# ---------------------------------------------------------------- wrong: dtype/device generaliser
sub("DG-p1-float-result", False, {"table_halves": replace("table_halves",
    ".to(dtype)", ".float()")}, "Part 1: 'in dtype'."),
sub("DG-p5-float32-angles", False, {"rotate_half": replace("rotate_half",
    "cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)",
    "angles = angles.float()\n    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)")},
    "Part 5: 'Compute the positions, the angles, their sines and cosines in float64'."),
sub("DG-p7-default-zeros", False, {"shift": replace("shift",
    "m = torch.zeros(d_model, d_model, dtype=torch.float64)", "m = torch.zeros(d_model, d_model)").replace(
    "    return m\n", "    return m.double()\n").replace("c, s = angles.cos(), angles.sin()",
    "c, s = angles.cos().float(), angles.sin().float()")},
    "Part 7: 'the (d_model, d_model) float64 matrix ... to 1e-12' (built in float32, cast at the end)."),
sub("DG-p8-float32-differences", False, {"equivariance": replace("equivariance",
    "gap = (layer(x[:, perm]).to(torch.float64) - layer(x)[:, perm].to(torch.float64)).abs().max().item()",
    "gap = (layer(x[:, perm]).float() - layer(x)[:, perm].float()).abs().max().item()")},
    "Part 8: 'take the differences in float64'."),
sub("DG-p2-bfloat16-distances", False, {"alibi_block": replace("alibi_block",
    "dist = (q - k).abs().to(torch.float64)", "dist = (q - k).abs().to(torch.bfloat16)")},
    "Part 2: 'Distances ... must be exact: float16 and bfloat16 hold every integer only up to 2048 and 256'."),
sub("DG-p4-float32-slowest-only", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    i = d // 2 - 1
    freq = torch.tensor(10000.0) ** torch.tensor(-2 * i / d)
    angle = torch.atan2(row[2 * i].float(), row[2 * i + 1].float()) % (2 * math.pi)
    return int(torch.round(angle / freq))
'''}, "Part 4: 'it must be exact for float32 rows too' (everything in float32, the frequency too)."),
# ---------------------------------------------------------------- correct
sub("OK-p1-cached-table-index-copy", True, {"table_halves": '''
TABLES = {}

def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    half = d_model // 2
    key = (d_model, float(base), float(scale))
    if key not in TABLES:  # frequencies only: a float64 tensor no caller ever sees
        new_base = base * scale ** (d_model / (d_model - 2))
        TABLES[key] = torch.exp(-(2.0 * torch.arange(half, dtype=torch.float64) / d_model) * math.log(new_base))
    angles = positions.to(torch.float64).unsqueeze(-1) * TABLES[key]
    out = torch.empty(*positions.shape, d_model, dtype=torch.float64)
    out[..., :half] = angles.sin()
    out[..., half:] = angles.cos()
    return out.to(dtype=dtype)
'''}, "a cache of frequencies keyed on everything they depend on; exp/log frequencies; fresh table."),
sub("OK-p2-float32-positions-lru-slopes", True, {"alibi_block": '''
import functools

@functools.lru_cache(maxsize=None)
def slopes_of(num_heads):
    return tuple(2.0 ** (-8.0 * (h + 1) / num_heads) for h in range(num_heads))


def alibi_block(num_heads, t, offset):
    keys = torch.arange(offset + t, dtype=torch.float32)
    queries = torch.arange(offset, offset + t, dtype=torch.float32)
    dist = (queries[:, None] - keys[None, :]).abs()
    slopes = torch.tensor(slopes_of(num_heads), dtype=torch.float32)
    bias = -slopes.view(-1, 1, 1) * dist
    allowed = keys[None, :] <= queries[:, None]
    return bias, allowed
'''}, "float32 holds every position below 2^24 (the text's bound); a cached tuple of Python floats."),
sub("OK-p3-torch-float", True, {"reach": "alibi_reach = float(torch.log(torch.tensor(1000.0, dtype=torch.float64)) / 2.0 ** -8)\n"},
    "float() of a float64 tensor: a Python float."),
sub("OK-p4-torch-atan2-float64", True, {"position": '''
def position_from_encoding(row):
    d = row.numel()
    pair = row.to(torch.float64).reshape(-1, 2)[-1]
    angle = torch.atan2(pair[0], pair[1])
    if angle < 0:
        angle = angle + 2 * math.pi
    omega = 10000.0 ** (-(d - 2) / d)
    return int(torch.round(angle / omega).item())
'''}, "atan2 in float64 on the slowest pair; int(round(...).item())."),
sub("OK-p5-via-part1-no-grad-angles", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 != 0 or not 2 <= rotary_dim <= dh:
        raise ValueError("rotary_dim must be even with 2 <= rotary_dim <= Dh")
    half = rotary_dim // 2
    with torch.no_grad():  # positions and angles carry no gradient
        first = t - lengths.long()
        m = torch.clamp(torch.arange(t).unsqueeze(0) - first.unsqueeze(1), min=0)
        if rotary_dim >= 4:  # Part 1's sines-first table has exactly these frequencies
            table = sinusoidal_table_halves(m, rotary_dim, base, dtype=torch.float64)
            sin, cos = table[..., :half], table[..., half:]
        else:
            sin, cos = m.double().sin().unsqueeze(-1), m.double().cos().unsqueeze(-1)
    sin, cos = sin.unsqueeze(1), cos.unsqueeze(1)
    wide = torch.promote_types(x.dtype, torch.float64)
    xr = x[..., :rotary_dim].to(wide)
    a, c = xr[..., :half], xr[..., half:]
    rotated = torch.cat([a * cos - c * sin, a * sin + c * cos], dim=-1).to(x.dtype)
    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)
'''}, "calls Part 1 (sines-first, D = R, scale 1: the same frequencies) under no_grad for the angles only; "
      "rotation in float64 and cast back; pass-through moved by cat."),
sub("OK-p5-loop-over-batch", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("bad rotary_dim")
    half = rotary_dim // 2
    theta = torch.tensor([base ** (-2.0 * i / rotary_dim) for i in range(half)], dtype=torch.float64)
    rows = []
    for seq, length in zip(x.unbind(0), [int(n) for n in lengths.tolist()]):
        m = torch.arange(t, dtype=torch.int64) - (t - length)
        m = torch.where(m < 0, torch.zeros_like(m), m).to(torch.float64)
        ang = m[:, None] * theta
        cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
        a, c = seq[..., :half], seq[..., half:rotary_dim]
        rows.append(torch.cat([a * cos - c * sin, a * sin + c * cos, seq[..., rotary_dim:]], dim=-1))
    if not rows:
        return x.new_empty(x.shape)
    return torch.stack(rows)
'''}, "a loop over the batch with Python-int lengths; new_empty for B = 0."),
sub("OK-p6-lower", True, {"mc": "answer_cache = 'B'.lower()\n"}, "str 'b'."),
sub("OK-p7-via-part1-clone-cache", True, {"shift": '''
import functools

@functools.lru_cache(maxsize=32)
def shift_cached(offset, d_model, base):
    h = d_model // 2
    if d_model >= 4 and abs(offset) < 2 ** 62:
        row = sinusoidal_table_halves(torch.tensor([offset]), d_model, base, dtype=torch.float64)[0]
        s, c = row[:h], row[h:]
    else:
        ang = offset * (base ** (-2.0 * torch.arange(h, dtype=torch.float64) / d_model))
        s, c = ang.sin(), ang.cos()
    m = torch.diag(torch.cat([c, c]))
    idx = torch.arange(h)
    m[idx + h, idx] = s
    m[idx, idx + h] = -s
    return m


def shift_matrix_halves(offset, d_model, base=10000.0):
    return shift_cached(offset, d_model, base).clone()
'''}, "Part 1's row at position offset holds sin and cos of offset * omega_i; an lru cache handing out clones."),
sub("OK-p8-no-grad-stacked", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.size(1)
    perms = [torch.randperm(t, generator=generator) for _ in range(trials)]
    gaps = []
    with torch.no_grad():
        for perm in perms:
            a = layer(x[:, perm]).to(dtype=torch.float64)
            b = layer(x).index_select(1, perm).to(dtype=torch.float64)
            gaps.append(torch.max(torch.abs(a - b)))
    worst = float(torch.stack(gaps).max())
    return bool(worst <= tol), worst
'''}, "permutations drawn first, in order; no_grad (no gradient asked); float() of a 0-d tensor."),
sub("OK-p8-layer-x-once", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    ref = layer(x).double()
    worst = 0.0
    for trial in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        worst = max(worst, float((layer(x[:, perm]).double() - ref[:, perm]).abs().amax()))
    return (worst <= tol) is True, worst
'''}, "layer(x) computed once per call (a deterministic layer); max of Python floats."),
# ---------------------------------------------------------------- hostile
sub("HOS-p3-float-subclass", False, {"reach": '''
class Anything(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
    __hash__ = float.__hash__
alibi_reach = Anything(1.0)
'''}, "hostile: a float subclass equal to everything."),
sub("HOS-p7-patch-assert-close", False, {"shift": '''
import torch.testing
torch.testing.assert_close = lambda *args, **kwargs: None

def shift_matrix_halves(offset, d_model, base=10000.0):
    return torch.eye(d_model, dtype=torch.float64)
'''}, "hostile: assert_close made a no-op, identity returned."),
]
# the in-place one, written plainly
SUBMISSIONS = [s for s in SUBMISSIONS if s["name"] != "AC-p5-in-place-on-x"]
SUBMISSIONS.insert(10, sub("AC-p5-in-place-on-x-then-clone", False, {"rotate_half": replace("rotate_half",
    "    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)",
    "    new1, new2 = x1 * cos - x2 * sin, x1 * sin + x2 * cos\n    with torch.no_grad():\n        x[..., :half] = new1\n        x[..., half:r] = new2\n    return x.clone()")},
    "Intro: 'Your functions must not change the tensors they are given'; Part 5 gradients (no_grad write into x)."))

SUBMISSIONS += [
sub("AC-p5-x-requires-grad", False, {"rotate_half": replace("rotate_half",
    "    b, h, t, dh = x.shape\n", "    b, h, t, dh = x.shape\n    if x.is_floating_point() and not x.requires_grad:\n        x.requires_grad_()  # the rotation must be differentiable\n")},
    "Intro: 'Your functions must not change the tensors they are given' (requires_grad switched on the caller's x)."),
sub("ST-p5-positions-cache-by-id", False, {"rotate_half": replace("rotate_half",
    "    m = (torch.arange(t)[None, :] - pad[:, None]).clamp(min=0).to(torch.float64)\n",
    "    key = (id(lengths), t)\n    if key not in POSITIONS:\n        POSITIONS[key] = (torch.arange(t)[None, :] - pad[:, None]).clamp(min=0).to(torch.float64)\n    m = POSITIONS[key]\n").replace(
    "def rope_partial_left_padded", "POSITIONS = {}\n\ndef rope_partial_left_padded")},
    "Intro: 'A function may not keep anything from one call to the next' (positions cached on id(lengths): a "
    "freed lengths tensor's id is reused by the next one)."),
sub("ST-p1-cache-by-id-positions", False, {"table_halves": replace("table_halves",
    "    angles = positions.to(torch.float64)[..., None] * freq\n",
    "    key = (id(positions), d_model, base, scale)\n    if key not in ANGLES:\n        ANGLES[key] = positions.to(torch.float64)[..., None] * freq\n    angles = ANGLES[key]\n").replace(
    "def sinusoidal_table_halves", "ANGLES = {}\n\ndef sinusoidal_table_halves")},
    "Intro: 'A function may not keep anything from one call to the next' (angles cached on id(positions))."),
]
