"""Chapter 4 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently (loops, complex numbers)."""

CHAPTER = "04-positional-encoding"
FULL_MARKS = 14.0

TABLE = """
def sinusoidal_table(length, d_model):
    pos = torch.arange(length, dtype=torch.float64)[:, None]
    freq = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    table = torch.zeros(length, d_model, dtype=torch.float64)
    table[:, {even}] = torch.{first}(pos * freq{scale})
    table[:, {odd}] = torch.{second}(pos * freq{scale})
    return table.float()
"""


def table(even="0::2", odd="1::2", first="sin", second="cos", scale=""):
    return TABLE.format(even=even, odd=odd, first=first, second=second, scale=scale)


def rope(pairs="interleaved", sign=1, start=0):
    take = "x[..., 0::2], x[..., 1::2]" if pairs == "interleaved" else "x[..., : dh // 2], x[..., dh // 2 :]"
    put = "out[..., 0::2], out[..., 1::2]" if pairs == "interleaved" else "out[..., : dh // 2], out[..., dh // 2 :]"
    return f"""
def apply_rope(x):
    t, dh = x.shape[-2:]
    theta = 10000.0 ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)
    angle = {sign} * torch.arange({start}, t + {start}, dtype=torch.float64)[:, None] * theta
    cos, sin = torch.cos(angle).to(x.dtype), torch.sin(angle).to(x.dtype)
    a, b = {take}
    out = torch.empty_like(x)
    ({put}) = (a * cos - b * sin, a * sin + b * cos)
    return out
"""


MUTANTS = {
    "table_sin_cos_swapped": ("test_table", {"table": table(first="cos", second="sin")}),
    "table_not_interleaved": ("test_table", {"table": table(even=": d_model // 2", odd="d_model // 2 :")}),
    "table_frequency_exponent_i_over_d": ("test_table", {"table": table(scale=" ** 0.5")}),
    "embed_without_scaling": ("test_embed", {"embed": """
def with_positions(embeddings):
    t, d = embeddings.shape[-2:]
    return embeddings + sinusoidal_table(t, d).to(embeddings.dtype)
"""}),
    "embed_scaled_by_d": ("test_embed", {"embed": """
def with_positions(embeddings):
    t, d = embeddings.shape[-2:]
    return embeddings * d + sinusoidal_table(t, d).to(embeddings.dtype)
"""}),
    "rope_rotates_wrong_pairs": ("test_rope", {"rope": rope(pairs="halves")}),
    "rope_rotates_backwards": ("test_rope", {"rope": rope(sign=-1)}),
    "rope_positions_from_one": ("test_rope", {"rope": rope(start=1)}),
    "alibi_slopes_wrong": ("test_alibi", {"alibi": """
def alibi(num_heads, t):
    slopes = 2.0 ** -torch.arange(1, num_heads + 1).float()
    pos = torch.arange(t)
    return -slopes[:, None, None] * (pos[:, None] - pos[None, :]).abs()
"""}),
    "alibi_bias_positive": ("test_alibi", {"alibi": """
def alibi(num_heads, t):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1) / num_heads)
    pos = torch.arange(t)
    return slopes[:, None, None] * (pos[:, None] - pos[None, :]).abs()
"""}),
    "alibi_signed_distance": ("test_alibi", {"alibi": """
def alibi(num_heads, t):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1) / num_heads)
    pos = torch.arange(t)
    return -slopes[:, None, None] * (pos[:, None] - pos[None, :])
"""}),
    "rope_score_both_at_m": ("test_rope_score", {"rope_score": """
def rope_score(q, k, m, n):
    rotated = apply_rope(torch.stack([q, k])[:, None].expand(2, m + 1, q.shape[0]))
    return float(rotated[0, m] @ rotated[1, m])
"""}),
    "equivariance_output_not_permuted": ("test_equivariance", {"equivariance": """
def is_permutation_equivariant(layer, x, perm, tol=1e-5):
    return bool(torch.allclose(layer(x[:, perm]), layer(x), atol=tol))
"""}),
    "equivariance_inverse_permutation": ("test_equivariance", {"equivariance": """
def is_permutation_equivariant(layer, x, perm, tol=1e-5):
    return bool(torch.allclose(layer(x[:, perm]), layer(x)[:, torch.argsort(perm)], atol=tol))
"""}),
    "wavelength_is_inverse_frequency": ("test_wavelength", {"wavelength": "slowest_wavelength = 10000 ** (510 / 512)"}),
    "learned_answer_wraps": ("test_learned_question", {"mc": 'answer_learned = "a"'}),
}

DIFFERENT_BUT_CORRECT = {
    "table": """
def sinusoidal_table(length, d_model):
    rows = []
    for pos in range(length):
        row = []
        for i in range(d_model // 2):
            angle = pos / 10000 ** (2 * i / d_model)
            row += [math.sin(angle), math.cos(angle)]
        rows.append(row)
    return torch.tensor(rows, dtype=torch.float32).reshape(length, d_model)
""",
    "embed": """
def with_positions(embeddings):
    d = embeddings.shape[-1]
    pe = sinusoidal_table(embeddings.shape[-2], d)
    return torch.addcmul(pe.to(embeddings.dtype), embeddings, torch.tensor(d ** 0.5, dtype=embeddings.dtype))
""",
    "rope": """
def apply_rope(x):
    t, dh = x.shape[-2:]
    theta = 10000.0 ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)
    angle = torch.outer(torch.arange(t, dtype=torch.float64), theta)
    rot = torch.polar(torch.ones_like(angle), angle)                      # e^{i m theta}
    z = torch.view_as_complex(x.double().reshape(*x.shape[:-1], dh // 2, 2).contiguous())
    return torch.view_as_real(z * rot).reshape(x.shape).to(x.dtype)
""",
    "alibi": """
def alibi(num_heads, t):
    out = torch.zeros(num_heads, t, t)
    for h in range(num_heads):
        m = 2 ** (-8 * (h + 1) / num_heads)
        for i in range(t):
            for j in range(t):
                out[h, i, j] = -m * abs(i - j)
    return out
""",
    "rope_score": """
def rope_score(q, k, m, n):
    dh = q.shape[0]
    theta = 10000.0 ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)
    zq = torch.complex(q[0::2].double(), q[1::2].double()) * torch.polar(torch.ones_like(theta), m * theta)
    zk = torch.complex(k[0::2].double(), k[1::2].double()) * torch.polar(torch.ones_like(theta), n * theta)
    return float((zq * zk.conj()).real.sum())
""",
    "equivariance": """
def is_permutation_equivariant(layer, x, perm, tol=1e-5):
    with torch.no_grad():
        gap = (layer(x.index_select(1, perm)) - layer(x).index_select(1, perm)).abs().max()
    return gap.item() <= tol
""",
    "wavelength": """
omega = 1 / 10000 ** (510 / 512)
slowest_wavelength = 2 * math.pi / omega
""",
    "mc": 'answer_learned = "b"',
}

CORRECT_VARIANTS = {"loops_complex_numbers_addcmul": DIFFERENT_BUT_CORRECT}

# Mutants of independent parts graded together, one submission per batch (python tests/mutant_batches.py
# 04-positional-encoding found them: no member breaks another member's graded test); the others alone.
MUTANT_BATCHES = [
    ["table_sin_cos_swapped", "rope_rotates_wrong_pairs", "alibi_slopes_wrong", "equivariance_output_not_permuted", "wavelength_is_inverse_frequency", "learned_answer_wraps"],
    ["table_not_interleaved", "rope_rotates_backwards", "alibi_bias_positive", "equivariance_inverse_permutation"],
    ["table_frequency_exponent_i_over_d", "rope_positions_from_one", "alibi_signed_distance", "rope_score_both_at_m"],
]
