"""Chapter 4 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose the points of exactly one part, and correct answers written differently that keep them all.

Besides the slips of each part, mutants stand for the classes of issue #22 that used to slip
through: small-size-only code (a cached distance table), degenerate shapes (positions of any shape
read as one row), unstated requirements (a float 0/1 mask, a float instead of an int, angles in
float32 that lose digits for long positions), non-contiguous inputs (.view on a transposed tensor),
state kept between calls (a cache keyed on the total length), the in-place rule (RoPE written into x), every
argument with a non-default value (base ignored), the exact meaning of a tolerance
(relative instead of absolute, mean instead of max, the first sequence of a batch only), an inequality's boundary (a gap equal to tol),
the generator (permutations redrawn when the identity comes up; the same checks catch the global
random state), rules that change results rarely (padding rows rotated by negative positions; an
angle from acos, right only below pi; truncation instead of rounding) and objects that lie (a
float and a str subclass equal to everything). Red team 7: positions rounded to a float16 or bfloat16
output (or x) dtype before the angles, which those dtypes hold exactly only up to 2048 and 256. Red team 8:
ALiBi positions in float16 (offsets past 2048); second pass: optional arguments taken by name only (base, scale,
dtype, tol), results that are slices of a table kept between calls (Parts 1, 2 and 7), and a rotation whose
values are right but whose gradient is not (a factor detached). Round 11 class sweep: features that only pass through
turned by the angle 0 (arithmetic on a move: -0.0 comes back 0.0).
"""

from grading import KEPT_BY_VERSION, kept_output_buffer

CHAPTER = "04-positional-encoding"
FULL_MARKS = 16.0


def table(combine="torch.cat([angle.sin(), angle.cos()], dim=-1)", stretched="base * scale ** (d_model / (d_model - 2))",
          work="torch.float64", pos="positions.to(work)[..., None]", check="d_model % 2 or d_model < 4"):
    return f"""
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if {check}:
        raise ValueError("d_model must be even and at least 4")
    work = {work}
    freq = ({stretched}) ** (-torch.arange(0, d_model, 2, dtype=work) / d_model)
    angle = {pos} * freq
    return {combine}.to(dtype)
"""


def alibi(distance="(q - k).abs()", mask="k <= q", slopes="2.0 ** (-8.0 * torch.arange(1, num_heads + 1) / num_heads)",
          prelude=""):
    return f"""{prelude}
def alibi_block(num_heads, t, offset):
    slopes = {slopes}
    q = torch.arange(offset, offset + t)[:, None]
    k = torch.arange(offset + t)[None, :]
    distance = {distance}
    return (-slopes[:, None, None] * distance).float(), {mask}
"""


PRESS_SLOPES = """
def press_slopes(n):
    def power_of_two(m):
        start = 2.0 ** (-8.0 / m)
        return [start ** (i + 1) for i in range(m)]
    lower = 2 ** math.floor(math.log2(n))
    slopes = power_of_two(lower)
    if lower < n:
        slopes += power_of_two(2 * lower)[0::2][: n - lower]
    return torch.tensor(slopes)
"""


def position(body):
    return f"""
def position_from_encoding(row):
    d = row.shape[-1]
    slowest = 10000.0 ** (-(d - 2) / d)
{body}
"""


ATAN2 = "    angle = math.atan2(float(row[-2]), float(row[-1])) % (2 * math.pi)\n"


def partial_rope(pos="(torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)", exponent="rotary_dim",
                 pairs="x[..., :half], x[..., half:rotary_dim]",
                 ending="return torch.cat([torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype), x[..., rotary_dim:]], dim=-1)"):
    return f"""
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    t, dh = x.shape[-2:]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("rotary_dim must be even and between 2 and Dh")
    half = rotary_dim // 2
    pos = {pos}
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / {exponent})
    angle = pos.double()[:, None, :, None] * theta
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = angle.cos().to(work), angle.sin().to(work)
    a, b = ({pairs})
    a, b = a.to(work), b.to(work)
    {ending}
"""


def shift(assign="m[i, i], m[i + half, i], m[i, i + half], m[i + half, i + half] = c, s, -s, c",
          index="torch.arange(half)", base="base", dtype=", dtype=torch.float64"):
    return f"""
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freq = {base} ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    c, s = torch.cos(offset * freq), torch.sin(offset * freq)
    m = torch.zeros(d_model, d_model{dtype})
    i = {index}
    {assign}
    return m
"""


def equivariance(draw="torch.randperm(t, generator=generator)",
                 gap="(layer(x[:, perm]).double() - reference[:, perm].double()).abs().max().item()",
                 flag="worst <= tol"):
    return f"""
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    reference = layer(x)
    gaps = []
    for _ in range(trials):
        perm = {draw}
        gaps.append({gap})
    worst = max(gaps)
    return {flag}, float(worst)
"""


MUTANTS = {
    # red team 17 (the defensive programmer): an early return for "nothing to encode" in the default dtype
    "table_halves_empty_positions_in_float32": ("test_table_halves", {"table_halves": """
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    if positions.numel() == 0:
        return torch.zeros(*positions.shape, d_model)
    freq = (base * scale ** (d_model / (d_model - 2))) ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angle = positions.to(torch.float64)[..., None] * freq
    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
"""}),
    # red team 17 (the defensive programmer): the bias clamped at -1e4 "to keep the scores finite"
    # red team 17 (the production engineer, left open by the blind helper): the bias and mask made under
    # torch.inference_mode(), whose tensors refuse the caller's in-place writes; the shared helpers refuse them now
    "alibi_block_in_inference_mode": ("test_alibi_block", {"alibi_block": "@torch.inference_mode()\n" + alibi()}),
    "alibi_bias_clamped": ("test_alibi_block", {"alibi_block": alibi().replace(
        "(-slopes[:, None, None] * distance).float()", "(-slopes[:, None, None] * distance).clamp(min=-1e4).float()")}),
    # Part 1: the table, sines first, stretched
    "table_interleaved_like_the_lesson": ("test_table_halves", {"table_halves": table(
        combine="torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(-2)")}),
    # refbind pass (round 11): a wrong Part 1 and a Part 4 that looks the row up in Part 1's table (its columns
    # reordered sines first): Part 4 gets the reference table, so the interleaved layout costs Part 1 only
    "table_interleaved_with_position_calling_it": ("test_table_halves", {
        "table_halves": table(combine="torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(-2)"),
        "position": """
_TABLES = {}

def position_from_encoding(row):
    d = row.shape[-1]
    # Part 1's plain table (base 10000) holds every position 0 .. 9999: the nearest of its rows is the position
    # (kept per table function and width: built at every call, the tests' hundreds of calls took seconds)
    key = (sinusoidal_table_halves, d)
    if key not in _TABLES:
        table = sinusoidal_table_halves(torch.arange(10000), d, dtype=torch.float64)
        _TABLES[key] = (table, (table * table).sum(dim=-1))
    table, norms = _TABLES[key]
    halves = torch.cat([row[0::2], row[1::2]]).double()  # (sin, cos, sin, cos, ...) -> sines first
    return int((norms - 2 * (table @ halves)).argmin())  # the nearest row: least squared distance
"""}),
    "table_interpolates_positions": ("test_table_halves", {"table_halves": table(
        stretched="base", pos="(positions.to(work) / scale)[..., None]")}),
    # .view needs a contiguous tensor: a transposed (B, T) batch of positions raises (red team round 2)
    "table_positions_transposed_view": ("test_table_halves", {"table_halves": table(
        pos="positions.to(work).view(-1, 1)", combine="torch.cat([angle.sin(), angle.cos()], dim=-1).view(*positions.shape, d_model)")}),
    "table_angles_in_float32": ("test_table_halves", {"table_halves": table(work="torch.float32")}),
    "table_positions_as_one_row": ("test_table_halves", {"table_halves": table(pos="positions.to(work).reshape(-1, 1)")}),
    # Part 2: ALiBi after a cache
    # state kept between calls: a cache keyed on (H, offset + T) returns the block of an earlier split
    "alibi_block_cache_keyed_on_total_length": ("test_alibi_block", {"alibi_block": """
CACHE = {}

def alibi_block(num_heads, t, offset):
    key = (num_heads, offset + t)
    if key not in CACHE:
        slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1) / num_heads)
        q = torch.arange(offset, offset + t)[:, None]
        k = torch.arange(offset + t)[None, :]
        CACHE[key] = (-slopes[:, None, None] * (q - k).abs(), k <= q)
    return CACHE[key]
"""}),
    "alibi_block_float_mask": ("test_alibi_block", {"alibi_block": alibi(mask="(k <= q).float()")}),
    "alibi_block_cached_table_of_512": ("test_alibi_block", {"alibi_block": alibi(
        distance="DISTANCE[offset:offset + t, :offset + t]",
        prelude="DISTANCE = (torch.arange(512)[:, None] - torch.arange(512)[None, :]).abs()\n")}),
    "alibi_block_lessons_slopes": ("test_alibi_block", {"alibi_block": alibi(slopes="press_slopes(num_heads)", prelude=PRESS_SLOPES)}),
    # Part 3: how far the flattest head reaches
    "reach_with_log10": ("test_reach", {"reach": "alibi_reach = 3 * 2 ** 8"}),
    "reach_of_the_steepest_head": ("test_reach", {"reach": "alibi_reach = math.log(1000) * 2"}),
    "reach_lying_float": ("test_reach", {"reach": """
class Whatever(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return Whatever(0.0)
    def __truediv__(self, other):
        return Whatever(1.0)
    __hash__ = float.__hash__

alibi_reach = Whatever(1.0)
"""}),
    # Part 4: the position read back
    "position_from_the_fastest_pair": ("test_position", {"position": """
def position_from_encoding(row):
    angle = math.atan2(float(row[0]), float(row[1])) % (2 * math.pi)
    return round(angle)
"""}),
    "position_from_acos": ("test_position", {"position": position("    return round(math.acos(float(row[-1])) / slowest)")}),
    "position_truncated": ("test_position", {"position": position(ATAN2 + "    return int(angle / slowest)")}),
    "position_returns_float": ("test_position", {"position": position(
        ATAN2 + "    return torch.round(torch.tensor(angle / slowest)).item()")}),
    # Part 5: partial RoPE on a left-padded batch
    "partial_rope_adjacent_pairs_like_the_lesson": ("test_rotate_half", {"rotate_half": partial_rope(
        pairs="x[..., 0:rotary_dim:2], x[..., 1:rotary_dim:2]",
        ending="return torch.cat([torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2).to(x.dtype), x[..., rotary_dim:]], dim=-1)")}),
    # .view on x: a transposed (B, T, H, Dh) -> (B, H, T, Dh) input raises (red team round 2)
    # round 12 class sweep (class 1, an empty batch): one row of positions per sequence, then torch.stack, which
    # raises for B = 0 (nothing to stack); right for every B >= 1
    "partial_rope_stacks_positions_of_an_empty_batch": ("test_rotate_half", {"rotate_half": partial_rope(
        pos="torch.stack([(torch.arange(t) - (t - int(n))).clamp(min=0) for n in lengths])")}),
    "partial_rope_view_needs_contiguous_x": ("test_rotate_half", {"rotate_half": partial_rope(
        pairs="x.view(-1, t, dh)[..., :half].view(*x.shape[:-1], half), x.view(-1, t, dh)[..., half:rotary_dim].view(*x.shape[:-1], half)")}),
    "partial_rope_padding_at_negative_positions": ("test_rotate_half", {"rotate_half": partial_rope(
        pos="torch.arange(t)[None, :] - (t - lengths.long())[:, None]")}),
    "partial_rope_frequencies_over_head_width": ("test_rotate_half", {"rotate_half": partial_rope(exponent="dh")}),
    "partial_rope_writes_into_x": ("test_rotate_half", {"rotate_half": partial_rope(ending="""a, b = a.clone(), b.clone()
    x[..., :half] = (a * cos - b * sin).to(x.dtype)
    x[..., half:rotary_dim] = (a * sin + b * cos).to(x.dtype)
    return x""")}),
    # Part 6: the question
    "cache_question_offsets_do_not_matter": ("test_cache_question", {"mc": 'answer_cache = "a"'}),
    "cache_question_lying_str": ("test_cache_question", {"mc": """
class AnyLetter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__

answer_cache = AnyLetter("z")
"""}),
    # Part 7: the shift matrix, sines first
    "shift_interleaved_like_the_lesson": ("test_shift", {"shift": shift(
        index="torch.arange(0, d_model, 2)", assign="m[i, i], m[i, i + 1], m[i + 1, i], m[i + 1, i + 1] = c, -s, s, c")}),
    # state kept between calls: one matrix per width, whatever the offset and the base
    "shift_cached_on_the_width": ("test_shift", {"shift": """
MATRICES = {}

def shift_matrix_halves(offset, d_model, base=10000.0):
    if d_model not in MATRICES:
        half = d_model // 2
        freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
        c, s = torch.cos(offset * freq), torch.sin(offset * freq)
        m = torch.zeros(d_model, d_model, dtype=torch.float64)
        i = torch.arange(half)
        m[i, i], m[i + half, i], m[i, i + half], m[i + half, i + half] = c, s, -s, c
        MATRICES[d_model] = m
    return MATRICES[d_model].clone()
"""}),
    "shift_base_ignored": ("test_shift", {"shift": shift(base="10000.0")}),
    "shift_float32": ("test_shift", {"shift": shift(dtype="")}),
    # Part 8: the equivariance checker
    # red team round 3 (slipped): the gap of the first sequence only; the hidden tests' layers used to add
    # the same offsets to every sequence of a batch, so one sequence's gap was everybody's. (It replaces
    # "equivariance_tol_ignored", worst <= 1e-5 hard-coded, whose hidden checks, tol=1e-7 and tol=1e-2
    # must be used, stay; no Part 8 slot was free and no Part 8 mutant is caught by the visible tests.)
    # round 14, fourth family (an input widened on entry): x made float64 before the layer sees it, "for accuracy";
    # every hidden layer took any dtype, and a float64 x changes no gap of a float64 layer
    "equivariance_layer_called_on_float64_x": ("test_equivariance", {"equivariance": equivariance().replace(
        "    t = x.shape[1]\n", "    t = x.shape[1]\n    x = x.double()  # more accurate differences\n", 1)}),
    "equivariance_first_sequence_only": ("test_equivariance", {"equivariance": equivariance(
        gap="(layer(x[:, perm])[0] - reference[0, perm]).abs().max().item()")}),
    "equivariance_mean_gap": ("test_equivariance", {"equivariance": equivariance(
        gap="(layer(x[:, perm]) - reference[:, perm]).abs().mean().item()")}),
    "equivariance_relative_tolerance": ("test_equivariance", {"equivariance": """
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    reference = layer(x)
    perms = [torch.randperm(x.shape[1], generator=generator) for _ in range(trials)]
    worst = max((layer(x[:, p]) - reference[:, p]).abs().max().item() for p in perms)
    return all(torch.allclose(layer(x[:, p]), reference[:, p], atol=tol) for p in perms), worst
"""}),
    "equivariance_gap_equal_to_tol_fails": ("test_equivariance", {"equivariance": equivariance(flag="worst < tol")}),
    # red team 11: the differences taken in the dtype of the outputs: in float16 they round, and overflow to inf
    "equivariance_differences_in_output_dtype": ("test_equivariance", {"equivariance": equivariance(
        gap="(layer(x[:, perm]) - reference[:, perm]).abs().max().item()")}),
    # red team 11: the lesson's square bias of the whole sequence sliced down to the block's rows: right values,
    # but (offset + T)^2 entries, terabytes after a cache of a million positions
    "alibi_block_square_table_sliced": ("test_alibi_block", {"alibi_block": """
def alibi_block(num_heads, t, offset):
    n = offset + t
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    pos = torch.arange(n)
    square = (-slopes[:, None, None] * (pos[:, None] - pos[None, :]).abs()).float()
    return square[:, offset:].clone(), (pos[None, :] <= pos[:, None])[offset:].clone()
"""}),
    # skipping the identity draws again from the generator: the permutations then differ from the
    # stated ones whenever an identity comes up, which the hidden tests make happen with T = 2
    # (the same checks catch the global random state, `torch.randperm(t)`)
    "equivariance_redraws_the_identity": ("test_equivariance", {"equivariance": """
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    reference = layer(x)
    gaps = []
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        while t > 1 and torch.equal(perm, torch.arange(t)):  # the identity tests nothing: draw again
            perm = torch.randperm(t, generator=generator)
        gaps.append((layer(x[:, perm]) - reference[:, perm]).abs().max().item())
    worst = max(gaps)
    return worst <= tol, float(worst)
"""}),
    # from the red team of issue #22 (blind, caught)
    # the exponent rounded by integer division: right whenever H divides 8(h + 1)
    "alibi_block_integer_exponent": ("test_alibi_block", {"alibi_block": """
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2.0 ** -(8 * (h + 1) // num_heads) for h in range(num_heads)])
    rows = offset + torch.arange(t)[:, None]
    cols = torch.arange(offset + t)[None, :]
    bias = -(slopes[:, None, None] * (rows - cols).abs()).to(torch.float32)
    return bias, cols <= rows
"""}),
    # the right number, but an int where the text asks for a Python float (red team round 2)
    "reach_as_an_int": ("test_reach", {"reach": 'alibi_reach = round(math.log(1000) * 2 ** 8)'}),
    # a 0-d tensor, not a float
    "reach_as_a_tensor": ("test_reach", {"reach": 'alibi_reach = torch.log(torch.tensor(1000.0)) * 256'}),
    # the sine alone: right below pi/2 only
    "position_from_asin": ("test_position", {"position": """
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    return int(round(math.asin(float(row[-2])) / omega))
"""}),
    "cache_question_shape_error": ("test_cache_question", {"mc": 'answer_cache = "c"'}),
    "cache_question_values_rotated": ("test_cache_question", {"mc": 'answer_cache = "d"'}),
    # omega_i = b^(-i/D): D = 2 has one frequency either way
    "shift_frequencies_without_the_two": ("test_shift", {"shift": """
def shift_matrix_halves(offset, d_model, base=10000.0):
    n = d_model // 2
    freq = base ** (-torch.arange(d_model // 2, dtype=torch.float64) / d_model)
    c, s = torch.cos(offset * freq), torch.sin(offset * freq)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(n)
    m[i, i] = c
    m[i + n, i + n] = c
    m[i + n, i] = s
    m[i, i + n] = -s
    return m
"""}),
    # Red team 6 (slipped): a shortcut that returns x itself when every row is at position 0, breaking
    # "a new tensor" on that path only
    "partial_rope_returns_x_when_nothing_turns": ("test_rotate_half", {"rotate_half": partial_rope().replace(
        "    half = rotary_dim // 2\n",
        "    if int(lengths.max()) <= 1:\n        return x  # every row is at position 0: nothing to rotate\n"
        "    half = rotary_dim // 2\n")}),
    # narrow integer dtypes (the texts allow uint8, int8 and int16): Part 1 as a table looked up by position,
    # its rows counted as positions.max() + 1 in the dtype of positions: 255 + 1 is 0 in uint8 (an empty
    # table), 127 + 1 is -128 in int8
    "table_rows_counted_in_narrow_dtype": ("test_table_halves", {"table_halves": """
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    freq = (base * scale ** (d_model / (d_model - 2))) ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    rows = int(positions.max() + 1) if positions.numel() else 0  # one row for each position up to the largest
    angle = torch.arange(rows, dtype=torch.float64)[:, None] * freq
    table = torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
    return table[positions.long()]  # look every position up
"""}),
    # Part 5: the earlier model answer. t - lengths stays in the dtype of lengths and wraps once T passes
    # its range: with T = 300, uint8 lengths 17 and 0 start at rows 27 and 44
    "partial_rope_start_in_narrow_dtype": ("test_rotate_half", {"rotate_half": partial_rope(
        pos="(torch.arange(t)[None, :] - (t - lengths)[:, None]).clamp(min=0)")}),
    # Red team 7 (slipped): positions converted to the output dtype before the angles; float16 holds the
    # integers only up to 2048 and bfloat16 up to 256, so later positions land on their neighbours' rows
    # red team 13 (mutation sweep): int64 positions passed through float32 on their way to float64; exact up to 2**24
    # only, so 2**24 + 1 lands on 2**24 (the text: up to 10**8, within 1e-6)
    "table_positions_through_float32": ("test_table_halves", {"table_halves": table(
        pos="positions.to(torch.float32).to(work)[..., None]")}),
    "table_positions_rounded_to_dtype": ("test_table_halves", {"table_halves": table(pos="positions.to(dtype).to(work)[..., None]")}),
    # Red team 14 (slipped): the angles of a float16/bfloat16 table in float32 ("they round anyway"), which every
    # half-precision case had kept below 2**24, where float32 still holds the positions
    "table_half_tables_through_float32": ("test_table_halves", {"table_halves": table(
        work="torch.float64 if dtype in (torch.float32, torch.float64) else torch.float32")}),
    "partial_rope_positions_in_dtype_of_x": ("test_rotate_half", {"rotate_half": partial_rope(
        pos="(torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).to(x.dtype)")}),
    # Red team 8 (slipped): ALiBi positions in float16, which holds every integer only up to 2048
    "alibi_block_positions_in_float16": ("test_alibi_block", {"alibi_block": alibi(distance="(q.half() - k.half()).abs()")}),
    # Red team 8, second pass, three classes. (1) An optional argument taken by name only (keyword-only, or read
    # from **options): the hidden tests passed base, scale, dtype and tol by name only
    "table_options_keyword_only": ("test_table_halves", {"table_halves": table().replace("d_model, base=", "d_model, *, base=")}),
    "partial_rope_base_keyword_only": ("test_rotate_half", {"rotate_half": partial_rope().replace(
        "rotary_dim, base=10000.0)", "rotary_dim, *, base=10000.0)")}),
    "shift_base_keyword_only": ("test_shift", {"shift": shift().replace("d_model, base=", "d_model, *, base=")}),
    "equivariance_tol_from_options": ("test_equivariance", {"equivariance": equivariance().replace(
        "generator, tol=1e-5):\n", "generator, **options):\n    tol = options.get(\"tol\", 1e-5)\n")}),
    # (2) A result that shares memory with a table kept between calls: right values, but a caller that writes
    # into one result changes the next
    "table_slice_of_kept_table": ("test_table_halves", {"table_halves": """
TABLES = {}

def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    key = (d_model, base, scale, dtype)
    rows = int(positions.max()) + 1 if positions.numel() else 0
    freq = (base * scale ** (d_model / (d_model - 2))) ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    if rows > 100_000:  # no table that long is kept (the hidden positions reach 10**8): computed directly
        angle = positions.to(torch.float64)[..., None] * freq
        return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
    if key not in TABLES or TABLES[key].shape[0] < rows:
        angle = torch.arange(max(rows, 64), dtype=torch.float64)[:, None] * freq
        TABLES[key] = torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
    table = TABLES[key]
    if positions.dim() == 1 and positions.numel():
        first = int(positions[0])
        if torch.equal(positions.long(), torch.arange(first, first + positions.numel())):
            return table[first:first + positions.numel()]  # consecutive positions: a slice of the table
    return table[positions.long()]
"""}),
    "alibi_block_slice_of_kept_table": ("test_alibi_block", {"alibi_block": """
TABLES = {}

def alibi_block(num_heads, t, offset):
    s = offset + t
    if num_heads not in TABLES or TABLES[num_heads][1].shape[0] < s:
        n = max(s, 64)
        slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
        pos = torch.arange(n)
        TABLES[num_heads] = ((-slopes[:, None, None] * (pos[:, None] - pos[None, :]).abs()).float(),
                             pos[None, :] <= pos[:, None])
    bias, allowed = TABLES[num_heads]
    return bias[:, offset:s, :s], allowed[offset:s, :s]
"""}),
    "shift_kept_between_calls": ("test_shift", {"shift": """
MATRICES = {}

def shift_matrix_halves(offset, d_model, base=10000.0):
    key = (offset, d_model, base)
    if key not in MATRICES:
        half = d_model // 2
        freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
        c, s = torch.cos(offset * freq), torch.sin(offset * freq)
        m = torch.zeros(d_model, d_model, dtype=torch.float64)
        i = torch.arange(half)
        m[i, i], m[i + half, i], m[i, i + half], m[i + half, i + half] = c, s, -s, c
        MATRICES[key] = m
    return MATRICES[key]
"""}),
    # (3) Right values, wrong gradient: one factor of the rotation detached from autograd
    "partial_rope_second_half_detached": ("test_rotate_half", {"rotate_half": partial_rope(
        pairs="x[..., :half], x[..., half:rotary_dim].detach()")}),
    # Red team 9 (chapter 3's slip, closed here too): torch's global state changed by a function. The global
    # generator seeded from the argument's seed and the permutations drawn from it (the same permutations for a
    # freshly seeded generator), and the deterministic-algorithms flag switched on
    "equivariance_seeds_the_global_generator": ("test_equivariance", {"equivariance": """
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    torch.manual_seed(generator.initial_seed())
    reference = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1])
        worst = max(worst, (layer(x[:, perm]) - reference[:, perm]).abs().max().item())
    return worst <= tol, float(worst)
"""}),
    "alibi_block_turns_on_deterministic_algorithms": ("test_alibi_block", {"alibi_block": alibi().replace(
        "def alibi_block(num_heads, t, offset):\n", "def alibi_block(num_heads, t, offset):\n    torch.use_deterministic_algorithms(True)\n")}),
    # red team 9, second pass -- Part 8: a threshold with a slack "for rounding" (chapter 6's class): caught by a tol
    # one float64 rounding below an exact gap
    # red team 13 (mutation sweep): the default tol 2e-5 instead of the stated 1e-5; every case passed tol itself or
    # had gaps far from 1e-5
    "equivariance_default_tol_doubled": ("test_equivariance", {"equivariance": equivariance().replace(
        "tol=1e-5", "tol=2e-5")}),
    "equivariance_tol_with_rounding_slack": ("test_equivariance", {"equivariance": equivariance(flag="worst <= tol + 1e-12")}),
    # Part 5: validation stricter than the text (chapter 3's class): a batch without rows refused
    "partial_rope_refuses_no_rows": ("test_rotate_half", {"rotate_half": partial_rope().replace(
        "    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:\n", "    if rotary_dim % 2 or not 2 <= rotary_dim <= dh or t == 0:\n")}),
    # red team 13, third family: the upper bound one off (rotary_dim <= Dh + 1), which lets an even rotary_dim = Dh + 1
    # through when Dh is odd (every refused case had an even Dh, or an odd rotary_dim)
    "partial_rope_accepts_rotary_dim_one_past_an_odd_dh": ("test_rotate_half", {"rotate_half": partial_rope().replace(
        "    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:\n", "    if rotary_dim % 2 or not 2 <= rotary_dim <= dh + 1:\n")}),
    # round 11 class sweep (chapter 03's Part 1 slip, a move done with arithmetic): every feature turned, as in code
    # that rotates whole heads, the last Dh - R by the angle 0 (x * 1 + 0 * 0), so a -0.0 passing through comes back 0.0
    "partial_rope_passes_features_through_by_angle_zero": ("test_rotate_half", {"rotate_half": """
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    t, dh = x.shape[-2:]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("rotary_dim must be even and between 2 and Dh")
    half = rotary_dim // 2
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    angle = pos.double()[:, None, :, None] * theta  # (B, 1, T, R/2)
    rest = angle.shape[:-1] + (dh - rotary_dim,)  # the features that do not turn: cos 1, sin 0
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos = torch.cat([angle.cos(), angle.cos(), angle.new_ones(rest)], dim=-1).to(work)
    sin = torch.cat([angle.sin(), angle.sin(), angle.new_zeros(rest)], dim=-1).to(work)
    xw = x.to(work)
    turned = torch.cat([-xw[..., half:rotary_dim], xw[..., :half], torch.zeros_like(xw[..., rotary_dim:])], dim=-1)
    return (xw * cos + turned * sin).to(x.dtype)
"""}),
    # red team 16 (trusting API user): the exponents 2i / D from a float-step arange, torch.arange(0, 1, 2 / D), whose
    # length ceil(1 / (2 / D)) is worked out in floats: D/2 + 1 entries for D = 98, 196, 206, ... (every width the
    # hidden tests used before was right). Parts 1, 4, 5 and 7 now use such widths.
    "table_exponents_from_a_float_step_arange": ("test_table_halves", {"table_halves": table().replace(
        "(-torch.arange(0, d_model, 2, dtype=work) / d_model)", "(-torch.arange(0, 1, 2 / d_model, dtype=work))")}),
    "position_slowest_from_a_float_step_arange": ("test_position", {"position": """
def position_from_encoding(row):
    d = row.shape[-1]
    slowest = (10000.0 ** -torch.arange(0, 1, 2 / d, dtype=torch.float64))[-1].item()
    angle = math.atan2(float(row[-2]), float(row[-1])) % (2 * math.pi)
    return round(angle / slowest)
"""}),
    "partial_rope_half_from_a_float_step_arange": ("test_rotate_half", {"rotate_half": partial_rope().replace(
        "    half = rotary_dim // 2\n", "").replace(
        "    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)\n",
        "    theta = base ** -torch.arange(0, 1, 2 / rotary_dim, dtype=torch.float64)\n    half = theta.numel()\n")}),
    "shift_frequencies_from_a_float_step_arange": ("test_shift", {"shift": """
def shift_matrix_halves(offset, d_model, base=10000.0):
    freq = base ** -torch.arange(0, 1, 2 / d_model, dtype=torch.float64)
    half = freq.numel()
    c, s = torch.cos(offset * freq), torch.sin(offset * freq)
    m = torch.zeros(2 * half, 2 * half, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i], m[i + half, i], m[i, i + half], m[i + half, i + half] = c, s, -s, c
    return m
"""}),
}

LOOPS_AND_COMPLEX = {
    "table_halves": """
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 == 1 or d_model < 4:
        raise ValueError("the width must be even and at least 4")
    half = d_model // 2
    # slowest: new_base ** (-(D-2)/D) == base ** (-(D-2)/D) / scale
    new_base = math.exp(math.log(base) + math.log(scale) * d_model / (d_model - 2))
    rows = []
    for p in positions.reshape(-1).tolist():
        angles = [p / new_base ** (2 * i / d_model) for i in range(half)]
        rows.append([math.sin(a) for a in angles] + [math.cos(a) for a in angles])
    table = torch.tensor(rows, dtype=torch.float64).reshape(*positions.shape, d_model)
    return table.to(dtype)
""",
    # round 26 class sweep (class U): the loop over every key this variant had took 15-23 s of CPU at the hidden offsets
    # past 2**20 (now the mutant alibi_block_torch_operation_per_key); the text allows loops over heads and query rows
    "alibi_block": """
def alibi_block(num_heads, t, offset):
    s = offset + t
    keys = torch.arange(s)
    bias = torch.zeros(num_heads, t, s)
    allowed = torch.zeros(t, s, dtype=torch.bool)
    for i in range(t):
        distance = (offset + i - keys).abs().double()  # integers to float64: exact below 2**53
        allowed[i] = keys <= offset + i
        for h in range(num_heads):
            bias[h, i] = -(2 ** (-8 * (h + 1) / num_heads)) * distance
    return bias, allowed
""",
    "reach": "alibi_reach = 256 * math.log(1e3)",
    "position": """
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = torch.atan2(row[-2].double(), row[-1].double())
    angle = torch.remainder(angle, 2 * math.pi)
    return int(torch.round(angle / omega))
""",
    "rotate_half": """
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim < 2 or rotary_dim > dh or rotary_dim % 2 != 0:
        raise ValueError("rotary_dim must be an even number from 2 to Dh")
    half = rotary_dim // 2
    out = x.clone()
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    for i in range(b):
        pad = t - int(lengths[i])
        m = torch.arange(t - pad)  # the real rows, positions 0 ..
        # refbind pass: Part 1's table, width 2R and base**2 (its frequencies (base**2)**(-2i/2R) = theta_i for i < R),
        # options by position; its sines are columns 0 .. R/2 - 1, their cosines R .. R + R/2 - 1
        table = sinusoidal_table_halves(m, 2 * rotary_dim, base ** 2, 1.0, torch.float64)
        rot = torch.complex(table[:, rotary_dim:rotary_dim + half], table[:, :half])
        z = torch.complex(x[i, :, pad:, :half].double(), x[i, :, pad:, half:rotary_dim].double()) * rot
        out[i, :, pad:, :half] = z.real.to(x.dtype)
        out[i, :, pad:, half:rotary_dim] = z.imag.to(x.dtype)
    return out
""",
    "mc": 'answer_cache = "b"  # the offset between new queries and cached keys is off by P',
    "shift": """
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    try:  # the sines and cosines of offset * omega_i are Part 1's table at the position offset
        row = sinusoidal_table_halves(torch.tensor([offset]), d_model, base, dtype=torch.float64)[0]
        sines, cosines = row[:half].tolist(), row[half:].tolist()
    except ValueError:  # Part 1 refuses d_model = 2: its one frequency is 1
        sines, cosines = [math.sin(offset)], [math.cos(offset)]
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(half):
        c, s = cosines[i], sines[i]
        m[i, i] = c
        m[i + half, i] = s
        m[i, i + half] = -s
        m[i + half, i + half] = c
    return m
""",
    "equivariance": """
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    with torch.no_grad():
        out = layer(x)
        perms = [torch.randperm(x.shape[1], generator=generator) for _ in range(trials)]
        worst = 0.0
        for perm in perms:
            worst = max(worst, float(torch.max(torch.abs(layer(x[:, perm]).double() - out[:, perm].double()))))
    return not worst > tol, worst
""",
}

BROADCAST_AND_ROTATE_HALF = {
    "table_halves": """
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model={d_model} must be even and >= 4")
    half = d_model // 2
    i = torch.arange(half, dtype=torch.float64)
    # keep omega_0 = 1, divide the last frequency by scale: log omega_i is linear in i
    log_freq = -(2 * i / d_model) * math.log(base) - i / (half - 1) * math.log(scale)
    angle = positions.double().unsqueeze(-1) * torch.exp(log_freq)
    out = torch.empty(*positions.shape, d_model, dtype=torch.float64)
    out[..., :half] = torch.sin(angle)
    out[..., half:] = torch.cos(angle)
    return out.to(dtype)
""",
    "alibi_block": """
def alibi_block(num_heads, t, offset):
    s = offset + t
    slopes = torch.tensor([2 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)])
    rel = torch.arange(s)[None, :] - torch.arange(t)[:, None] - offset  # key minus query position
    allowed = torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
    return slopes.view(-1, 1, 1) * -rel.abs().float(), allowed
""",
    "reach": "alibi_reach = 1768.0  # 256 ln 1000 = 1768.4, rounded: within 0.1 %, and still a float",
    "position": """
import cmath

def position_from_encoding(row):
    d = len(row)
    phase = cmath.phase(complex(row[-1].item(), row[-2].item()))
    if phase < 0:
        phase += 2 * math.pi
    return int(round(phase * 10000.0 ** ((d - 2) / d)))
""",
    "rotate_half": """
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    t, dh = x.shape[-2:]
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError(f"bad rotary_dim {rotary_dim} for Dh={dh}")
    rot, rest = x[..., :rotary_dim].double(), x[..., rotary_dim:]
    inv = 1.0 / base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    real = torch.arange(t)[None, :] >= (t - lengths.long())[:, None]  # (B, T); int64: t - n wraps in uint8
    pos = (torch.cumsum(real.long(), dim=1) - 1).clamp(min=0)  # like position_ids from an attention mask
    angle = torch.cat([pos.double()[..., None] * inv] * 2, dim=-1)[:, None]  # (B, 1, T, R)
    x1, x2 = rot.chunk(2, dim=-1)
    turned = torch.cat([-x2, x1], dim=-1)
    return torch.cat([(rot * angle.cos() + turned * angle.sin()).to(x.dtype), rest], dim=-1)
""",
    "mc": 'answer_cache = "B".lower()',
    "shift": """
def shift_matrix_halves(offset, d_model, base=10000.0):
    # refbind pass: Part 5's RoPE with rotary_dim = d_model turns pair (i, i + D/2) by m * omega_i, the table's
    # frequencies: row j of the identity, alone in a sequence of length |offset| + 1, comes back as row j of the
    # rotation by |offset|. The shift by +k turns the other way, the transpose.
    k = abs(offset)
    if k > 2 ** 16:  # red team 31: offsets up to 2**53 are tested, and |offset| + 1 rows do not fit: the angles directly
        half = d_model // 2
        angle = offset * base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
        m = torch.zeros(d_model, d_model, dtype=torch.float64)
        i = torch.arange(half)
        m[i, i], m[i + half, i], m[i, i + half], m[i + half, i + half] = angle.cos(), angle.sin(), -angle.sin(), angle.cos()
        return m
    rows = torch.zeros(d_model, 1, k + 1, d_model, dtype=torch.float64)
    rows[:, 0, -1] = torch.eye(d_model, dtype=torch.float64)
    turned = rope_partial_left_padded(rows, torch.full((d_model,), k + 1, dtype=torch.int32), d_model, base=base)
    m = turned[:, 0, -1]
    return m.T.contiguous() if offset > 0 else m.clone()
""",
    "equivariance": """
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    perms = torch.stack([torch.randperm(x.shape[1], generator=generator) for _ in range(trials)])
    base = layer(x).to(torch.float64)
    gaps = torch.stack([(layer(x.index_select(1, p)).to(torch.float64) - base.index_select(1, p)).abs().amax() for p in perms])
    worst = gaps.max().item()
    return bool(worst <= tol), worst
""",
}

CORRECT_VARIANTS = {"loops_and_complex": LOOPS_AND_COMPLEX, "broadcast_and_rotate_half": BROADCAST_AND_ROTATE_HALF}

# Round 14 variant sweep (loops_and_complex, rotate_half #42): a rule on an argument that only the work on the rows
# enforces. The variant's own check misses rotary_dim = 0 (`< 0` for `< 2`) and still raises wherever a row is
# turned, since Part 1 refuses a table of width 2 * rotary_dim = 0; in an empty batch nothing is turned. Part 1's
# twin: an early return for an empty positions tensor before the check on d_model
MUTANTS["partial_rope_rotary_dim_zero_refused_only_by_the_rows"] = ("test_rotate_half", {
    "rotate_half": LOOPS_AND_COMPLEX["rotate_half"].replace("if rotary_dim < 2 or", "if rotary_dim < 0 or")})
MUTANTS["table_empty_positions_returned_before_the_check"] = ("test_table_halves", {"table_halves": table().replace(
    "    if d_model % 2 or d_model < 4:\n",
    "    if positions.numel() == 0:  # nothing to encode\n        return torch.zeros(*positions.shape, d_model, dtype=dtype)\n"
    "    if d_model % 2 or d_model < 4:\n")})

# Round 15 class sweep, second pass (chapters 6 and 7's class: a result written into a buffer kept per shape): each
# part that returns a tensor copies its result into an output tensor kept per shape and returns that, so the next
# call of the same shape overwrites what the caller still holds. Caught by two problems of one shape in turn, the
# first result compared again after the second call


MUTANTS["table_halves_kept_output_buffer"] = ("test_table_halves", {"table_halves": kept_output_buffer(
    table(), "sinusoidal_table_halves", "positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32",
    "positions, d_model, base, scale, dtype")})
MUTANTS["alibi_block_kept_output_buffer"] = ("test_alibi_block", {"alibi_block": kept_output_buffer(
    alibi(), "alibi_block", "num_heads, t, offset", "num_heads, t, offset")})
MUTANTS["partial_rope_kept_output_buffer"] = ("test_rotate_half", {"rotate_half": kept_output_buffer(
    partial_rope(), "rope_partial_left_padded", "x, lengths, rotary_dim, base=10000.0", "x, lengths, rotary_dim, base")})
MUTANTS["shift_kept_output_buffer"] = ("test_shift", {"shift": kept_output_buffer(
    shift(), "shift_matrix_halves", "offset, d_model, base=10000.0", "offset, d_model, base")})

# Mutants of different parts graded together, one submission per batch: each member changes its own
# answer cell and, graded alone, loses only its own part (checked with tests/mutant_batches.py).
# Round 15 class sweep (ch02's class, state kept between calls and served on a shortcut path only). Part 1: the plain
# table at positions 0 .. T-1 with every default served as a slice of a kept table (the hidden tests caught it already;
# the scribble check now also runs at every default)
MUTANTS["table_halves_plain_table_kept_and_sliced"] = ("test_table_halves", {"table_halves": """
PLAIN = {}

def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("bad d_model")
    stretched = base * scale ** (d_model / (d_model - 2))
    exponents = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model
    n = positions.numel()
    if positions.dim() == 1 and n and torch.equal(positions.long(), torch.arange(n)):  # the common case: 0 .. T-1
        key = (d_model, stretched, dtype)
        if key not in PLAIN or PLAIN[key].shape[0] < n:
            angle = torch.arange(max(n, 1024), dtype=torch.float64)[:, None] * stretched ** -exponents
            PLAIN[key] = torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
        return PLAIN[key][:n]
    angle = positions.to(torch.float64).unsqueeze(-1) * stretched ** -exponents
    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
"""})
# Part 2: the decoding step (T = 1) returns its all-True mask as a slice of a kept tensor; the scribble check ran at
# T = 4 and 6 only, now also at (4, 1, 7) and (1, 1, 0)
MUTANTS["alibi_decode_step_mask_from_kept_ones"] = ("test_alibi_block", {"alibi_block": """
ONES = [torch.ones(0, dtype=torch.bool)]

def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    query_pos = torch.arange(offset, offset + t)[:, None]
    key_pos = torch.arange(offset + t)[None, :]
    bias = (-slopes[:, None, None] * (query_pos - key_pos).abs()).to(torch.float32)
    if t == 1:  # one new token sees every key
        if ONES[0].shape[0] < offset + 1:
            ONES[0] = torch.ones(2 * (offset + 1), dtype=torch.bool)
        return bias, ONES[0][None, :offset + 1]
    return bias, key_pos <= query_pos
"""})
# Part 7: offset 0 returns an identity kept per width; the scribble check ran at offsets 3 and -2, now also at 0
MUTANTS["shift_identity_kept_for_offset_zero"] = ("test_shift", {"shift": """
EYES = {}

def shift_matrix_halves(offset, d_model, base=10000.0):
    if offset == 0:  # no shift: the identity
        if d_model not in EYES:
            EYES[d_model] = torch.eye(d_model, dtype=torch.float64)
        return EYES[d_model]
    half = d_model // 2
    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    c, s = torch.cos(offset * freq), torch.sin(offset * freq)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i], m[i + half, i] = c, s
    m[i, i + half], m[i + half, i + half] = -s, c
    return m
"""})
# Round 15 class sweep (ch01's class, a constant at a value the text names): every row at position 0, where nothing
# turns, returns x.clone().detach(); right values, no gradient. The gradients are now compared there too
MUTANTS["rope_no_rotation_returns_a_detached_copy"] = ("test_rotate_half", {"rotate_half": """
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    t, dh = x.shape[-2:]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("bad rotary_dim")
    if lengths.numel() == 0 or bool((lengths.long() <= 1).all()):  # every row at position 0: nothing turns
        return x.clone().detach()
    half = rotary_dim // 2
    first_real = t - lengths.long()
    pos = (torch.arange(t)[None, :] - first_real[:, None]).clamp(min=0)
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    angle = pos.to(torch.float64)[:, None, :, None] * theta
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = angle.cos().to(work), angle.sin().to(work)
    a, b = x[..., :half].to(work), x[..., half:rotary_dim].to(work)
    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)
    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)
"""})

MUTANT_BATCHES = [
    ["table_interleaved_like_the_lesson", "alibi_block_cache_keyed_on_total_length", "reach_with_log10",
     "position_from_the_fastest_pair", "partial_rope_adjacent_pairs_like_the_lesson",
     "cache_question_offsets_do_not_matter", "shift_interleaved_like_the_lesson", "equivariance_first_sequence_only"],
    ["table_interpolates_positions", "alibi_block_float_mask", "reach_of_the_steepest_head", "position_from_acos",
     "partial_rope_view_needs_contiguous_x", "cache_question_lying_str", "shift_cached_on_the_width", "equivariance_mean_gap"],
    ["table_angles_in_float32", "alibi_block_cached_table_of_512", "reach_lying_float", "position_truncated",
     "partial_rope_padding_at_negative_positions", "shift_base_ignored", "equivariance_relative_tolerance"],
    ["table_positions_transposed_view", "alibi_block_lessons_slopes", "position_returns_float",
     "partial_rope_frequencies_over_head_width", "shift_float32", "equivariance_gap_equal_to_tol_fails",
     "reach_as_an_int", "cache_question_shape_error"],
    ["table_positions_as_one_row", "alibi_block_integer_exponent", "reach_as_a_tensor", "position_from_asin",
     "partial_rope_writes_into_x", "cache_question_values_rotated", "shift_frequencies_without_the_two",
     "equivariance_redraws_the_identity"],
    ["partial_rope_returns_x_when_nothing_turns", "table_rows_counted_in_narrow_dtype",  # red team 6; narrow dtypes
     "alibi_block_positions_in_float16",  # red team 8
     "shift_kept_between_calls", "equivariance_tol_from_options",  # red team 8, second pass (classes 2 and 1)
     "position_slowest_from_a_float_step_arange"],  # red team 16
    ["partial_rope_start_in_narrow_dtype",  # narrow integer dtypes: every batch above already has a part 5 mutant
     "table_positions_rounded_to_dtype",  # red team 7
     "alibi_block_slice_of_kept_table", "shift_base_keyword_only",  # red team 8, second pass (classes 2 and 1)
     "equivariance_tol_with_rounding_slack"],  # red team 9, second pass
    ["partial_rope_positions_in_dtype_of_x",  # red team 7: every batch above already has a part 5 mutant
     "table_options_keyword_only",  # red team 8, second pass (class 1)
     "alibi_block_turns_on_deterministic_algorithms",  # red team 9
     "equivariance_default_tol_doubled", "shift_identity_kept_for_offset_zero"],  # red team 13
    # red team 8, second pass: every batch above already has a part 5 mutant (and a part 1 mutant)
    ["partial_rope_base_keyword_only", "table_slice_of_kept_table",
     "equivariance_seeds_the_global_generator",  # red team 9
     "alibi_block_square_table_sliced",  # red team 11
     "shift_frequencies_from_a_float_step_arange"],  # red team 16
    ["partial_rope_second_half_detached", "equivariance_differences_in_output_dtype",  # red team 11
     "table_positions_through_float32", "alibi_decode_step_mask_from_kept_ones"],  # red team 13
    ["partial_rope_refuses_no_rows",  # red team 9, second pass: every batch above has a part 5 mutant
     "table_interleaved_with_position_calling_it",  # refbind pass (round 11)
     "alibi_block_in_inference_mode"],  # red team 17
    # round 11 class sweep: every batch above already has a part 5 mutant
    ["partial_rope_passes_features_through_by_angle_zero",
     "equivariance_layer_called_on_float64_x",  # round 14, fourth family: no Part 8 mutant here yet
     "table_half_tables_through_float32"],  # red team 14
    # round 12 class sweep: likewise
    ["partial_rope_stacks_positions_of_an_empty_batch", "table_halves_plain_table_kept_and_sliced"],
    # red team 13, third family: likewise
    ["partial_rope_accepts_rotary_dim_one_past_an_odd_dh",
     "table_exponents_from_a_float_step_arange"],  # red team 16
    # round 14 variant sweep: likewise (every batch above has a Part 5 mutant)
    ["partial_rope_rotary_dim_zero_refused_only_by_the_rows", "table_empty_positions_returned_before_the_check"],
    # round 15 class sweep: every batch above has a Part 5 mutant
    ["rope_no_rotation_returns_a_detached_copy",
     "table_halves_kept_output_buffer", "alibi_block_kept_output_buffer", "shift_kept_output_buffer"],  # second pass
    # round 15 class sweep, second pass: every batch above has a Part 5 mutant
    ["partial_rope_kept_output_buffer"],
    # red team 16: every batch above has a Part 5 mutant
    ["partial_rope_half_from_a_float_step_arange",
     "table_halves_empty_positions_in_float32", "alibi_bias_clamped"],  # red team 17
]

# Round 17 clamp sweep (tests/redteam/round17/04-clamp-verdicts.md): a defensive clamp on a value the text does not
# bound, right for every value the tests used (entries of order 1, bases from 100 to 500 000, offsets up to 10 000).
# The hidden tests now use x near 1e5 (Parts 5 and 8), base 1e-5 (Part 5), offsets of 30 001 with base 1e20 (Part 7)
MUTANTS["partial_rope_clamps_x"] = ("test_rotate_half", {"rotate_half": partial_rope(
    pairs="x[..., :half].clamp(-1e4, 1e4), x[..., half:rotary_dim].clamp(-1e4, 1e4)")})
MUTANTS["partial_rope_floors_the_base"] = ("test_rotate_half", {"rotate_half": partial_rope().replace(
    "theta = base ** (", "theta = max(base, 1e-4) ** (", 1)})
MUTANTS["shift_clamps_the_angles"] = ("test_shift", {"shift": shift().replace(
    "c, s = torch.cos(offset * freq), torch.sin(offset * freq)",
    "angle = (offset * freq).clamp(-1e4, 1e4)\n    c, s = torch.cos(angle), torch.sin(angle)", 1)})
MUTANTS["shift_floors_the_frequencies"] = ("test_shift", {"shift": shift().replace(
    "    c, s = torch.cos(", "    freq = freq.clamp(min=1e-12)\n    c, s = torch.cos(", 1)})
MUTANTS["equivariance_clamps_x"] = ("test_equivariance", {"equivariance": equivariance().replace(
    "    t = x.shape[1]\n", "    t = x.shape[1]\n    x = x.clamp(-1e4, 1e4)\n", 1)})
# batches without a Part 7 or Part 8 member take those; every batch holds a Part 5 member: two new ones
next(b for b in MUTANT_BATCHES if "partial_rope_stacks_positions_of_an_empty_batch" in b).extend(
    ["shift_clamps_the_angles", "equivariance_clamps_x"])
next(b for b in MUTANT_BATCHES if "partial_rope_accepts_rotary_dim_one_past_an_odd_dh" in b).append(
    "shift_floors_the_frequencies")
MUTANT_BATCHES.extend([["partial_rope_clamps_x"], ["partial_rope_floors_the_base"]])

# Red team 18 (tests/redteam/round18/04-verdicts.md). The stateful student keeps something worked out from a tensor
# per id() of it, or in a functools.lru_cache (a tensor hashes by its identity): the caller's tensor changed in place
# between two calls gets the old answer. Parts 1, 4, 5 and 8 now call again with the same tensor after writing into
# it. The autograd-careless student switches a module to eval() "to turn dropout off" and leaves it there: Part 8
# now passes modules in training and in eval mode and checks each mode after the call (and every tensor's
# requires_grad flag, in Parts 4, 5 and 8).
MUTANTS["table_angles_cached_per_id_of_positions"] = ("test_table_halves", {"table_halves": """
ANGLES = {}

def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    key = (id(positions), d_model, base, scale)
    if key not in ANGLES:  # the angles of these positions, worked out once
        stretched = base * scale ** (d_model / (d_model - 2))
        freq = stretched ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
        ANGLES[key] = positions.to(torch.float64)[..., None] * freq
    angle = ANGLES[key]
    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
"""})
MUTANTS["position_lru_cache_on_the_row"] = ("test_position", {"position": "import functools\n\n@functools.lru_cache(maxsize=None)" + position(
    ATAN2 + "    return round(angle / slowest)")})
MUTANTS["partial_rope_positions_cached_per_id_of_lengths"] = ("test_rotate_half", {"rotate_half": "POSITIONS = {}\n" + partial_rope(
    pos="POSITIONS.setdefault((id(lengths), t), (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0))")})
MUTANTS["equivariance_switches_the_layer_to_eval"] = ("test_equivariance", {"equivariance": equivariance().replace(
    "    t = x.shape[1]\n",
    "    t = x.shape[1]\n    if isinstance(layer, torch.nn.Module):\n        layer.eval()  # no dropout while testing\n", 1)})
# batches with room (no member of that part yet); every batch holds a Part 5 member: the Part 5 one is alone
next(b for b in MUTANT_BATCHES if b == ["partial_rope_kept_output_buffer"]).extend(
    ["table_angles_cached_per_id_of_positions", "position_lru_cache_on_the_row", "equivariance_switches_the_layer_to_eval"])
MUTANT_BATCHES.append(["partial_rope_positions_cached_per_id_of_lengths"])

# Red team 18 class sweep (tests/redteam/round18/04-sweep-verdicts.md). Class E: the pair a part returns as (a, b)
# returned as a list, which unpacks like the tuple (Parts 2 and 8 now check the kind through _plain). Class F:
# backward() run inside "to check that the gradient flows" (retain_graph=True, so the caller's autograd.grad still
# works and the gradients compared are right): the caller's x gets a .grad before its own backward pass (Part 5 now
# checks that x.grad is still None after a call on a leaf that requires grad). Every batch holds a Part 5 member, so
# Part 5's backward() has no mutant.
from grading import place_mutant, place_mutants, replaced as _replaced_code, solution_code as _solution_code  # noqa: E402

_MODEL = _solution_code(CHAPTER)
for _name, _test, _part, _old, _new in [
        ("alibi_block_returns_a_list", "test_alibi_block", "alibi_block", "    return bias, key_pos <= query_pos",
         "    return [bias, key_pos <= query_pos]"),
        ("equivariance_returns_a_list", "test_equivariance", "equivariance", "    return worst <= tol, float(worst)",
         "    return [worst <= tol, float(worst)]")]:
    MUTANTS[_name] = (_test, {_part: _replaced_code(_MODEL[_part], _old, _new, once=True)})
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")

# Red team 19 (tests/redteam/round19/04-verdicts.md), the numerically naive student: the largest absolute difference as
# the square root of the largest square. In float64 a difference past 1e154 squares to inf, one below 1e-162 to 0:
# Part 8 now has both (a gap of 1e200 and one of 3e-170, the text says so)
MUTANTS["equivariance_root_of_the_largest_square"] = ("test_equivariance", {"equivariance": _replaced_code(
    _MODEL["equivariance"], ".abs().max().item())  # largest entry", ".pow(2).max().sqrt().item())", once=True)})
place_mutant(MUTANTS, MUTANT_BATCHES, "equivariance_root_of_the_largest_square", "free")

# Red team 19 class sweep (tests/redteam/round19/04-sweep-verdicts.md, B3-rope-polar-form-through-squares): each pair
# rotated through its modulus sqrt(a * a + b * b) and phase, inf/NaN past 1e154 (float64) and 1e19 (float32). Every
# batch above holds a Part 5 member, so it gets a new batch (a plain process, like every batch but batch_0)
MUTANTS["rope_partial_left_padded_polar_form_through_squares"] = ("test_rotate_half", {"rotate_half": _replaced_code(
    _MODEL["rotate_half"], "    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)\n",
    "    r = torch.sqrt(a * a + b * b)  # overflows past 1e154 (float64), 1e19 (float32)\n"
    "    phi = torch.atan2(b, a)\n"
    "    rotated = torch.cat([r * (cos * torch.cos(phi) - sin * torch.sin(phi)),\n"
    "                         r * (sin * torch.cos(phi) + cos * torch.sin(phi))], dim=-1).to(x.dtype)\n", once=True)})
place_mutants(MUTANTS, MUTANT_BATCHES, ["rope_partial_left_padded_polar_form_through_squares"], "new")

# Red team 20 (tests/redteam/round20/04-verdicts.md), the early-exit student: with T = 1 every permutation is the
# identity, so "nothing can move" returned (True, 0.0) without calling the layer, and an identity drawn counted as a
# gap of 0 without its calls. A module with dropout in training mode gives a gap there too: Part 8 now passes one
# (drawing from a generator of its own) at T = 1 and at T = 2 with seeds that draw only the identity
MUTANTS["equivariance_one_position_returns_without_the_layer"] = ("test_equivariance", {"equivariance": _replaced_code(
    _MODEL["equivariance"], "    t = x.shape[1]\n",
    "    t = x.shape[1]\n    if t == 1:  # the only permutation is the identity\n        return True, 0.0\n", once=True)})
place_mutant(MUTANTS, MUTANT_BATCHES, "equivariance_one_position_returns_without_the_layer", "free")
MUTANTS["equivariance_identity_counts_as_no_gap"] = ("test_equivariance", {"equivariance": equivariance(
    gap="0.0 if torch.equal(perm, torch.arange(t)) else "
        "(layer(x[:, perm]).double() - reference[:, perm].double()).abs().max().item()")})
place_mutant(MUTANTS, MUTANT_BATCHES, "equivariance_identity_counts_as_no_gap", "free")

# Red team 21 (tests/redteam/round21/04-verdicts.md), the signature-and-defaults student: an argument renamed in the
# stub's signature (pos for positions, n_heads for num_heads, k for offset, n_trials for trials) gives the right values
# to every positional call, and the hidden tests named only the optional arguments. Each part with a function now
# passes every argument by name in some cases (the introduction says so); one renaming per part. Each goes into the
# first batch with room; a mutant no batch has room for stays out of the batches and runs alone in a plain process.
ROUND_21 = {
    "table_halves_renames_positions": ("test_table_halves", {"table_halves": _replaced_code(
        _MODEL["table_halves"], "def sinusoidal_table_halves(positions, d_model,",
        "def sinusoidal_table_halves(pos, d_model,", once=True).replace(
        "dtype=torch.float32):\n", "dtype=torch.float32):\n    positions = pos\n", 1)}),
    "alibi_block_renames_num_heads": ("test_alibi_block", {"alibi_block": _replaced_code(
        _MODEL["alibi_block"], "def alibi_block(num_heads, t, offset):\n",
        "def alibi_block(n_heads, t, offset):\n    num_heads = n_heads\n", once=True)}),
    "position_renames_row": ("test_position", {"position": _replaced_code(
        _MODEL["position"], "def position_from_encoding(row):\n", "def position_from_encoding(pe_row):\n    row = pe_row\n",
        once=True)}),
    "rope_renames_lengths": ("test_rotate_half", {"rotate_half": _replaced_code(
        _MODEL["rotate_half"], "def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):\n",
        "def rope_partial_left_padded(x, seq_lengths, rotary_dim, base=10000.0):\n    lengths = seq_lengths\n", once=True)}),
    "shift_renames_offset": ("test_shift", {"shift": _replaced_code(
        _MODEL["shift"], "def shift_matrix_halves(offset, d_model, base=10000.0):\n",
        "def shift_matrix_halves(k, d_model, base=10000.0):\n    offset = k\n", once=True)}),
    "equivariance_renames_trials": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"], "def check_equivariance(layer, x, trials, generator, tol=1e-5):\n",
        "def check_equivariance(layer, x, n_trials, generator, tol=1e-5):\n    trials = n_trials\n", once=True)}),
}
MUTANTS.update(ROUND_21)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_21, "alone")  # no batch has room: it runs alone

# Red team 25 (tests/redteam/round25/04-verdicts.md), the log-space student: the outputs cleaned with nan_to_num "to make
# -inf comparable" turn an infinite gap into 1.8e308, and no hidden layer had an infinite output. The text now says
# that an infinite entry against a finite one differs by inf; Part 8 has a float64 layer adding -inf at one position
# and a float16 one overflowing there, with seeds whose permutations all move that position.
ROUND_25 = {
    "equivariance_gap_cleaned_with_nan_to_num": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"], ".abs().max().item())  # largest entry", ".nan_to_num().abs().max().item())",
        once=True)}),
}
MUTANTS.update(ROUND_25)
ROUND_25_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_25, "alone")

# Round 25 class sweep (tests/redteam/round25/04-sweep-verdicts.md), class L (a table sized below the text's limit):
# positions sliced from a table torch.arange(2**20) made once passed Part 2, whose longest case was offset 10**6 + 7.
# Part 2 now has offset 1 049 000 (past 2**20) and Part 5 a T of 2**20 + 3; the text says a table built once is too
# short. Part 5's mutant is written in the sweep's verdicts (no batch has room for a test_rotate_half mutant).
ROUND_25_SWEEP = {
    "alibi_positions_from_a_table_of_2_to_20": ("test_alibi_block", {"alibi_block": "POSITIONS = torch.arange(1 << 20)\n" + _replaced_code(
        _replaced_code(_MODEL["alibi_block"], "torch.arange(offset, offset + t)[:, None]", "POSITIONS[offset:offset + t][:, None]",
                       once=True), "torch.arange(offset + t)[None, :]", "POSITIONS[:offset + t][None, :]", once=True)}),
}
MUTANTS.update(ROUND_25_SWEEP)
ROUND_25_SWEEP_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_25_SWEEP, "alone")
assert not ROUND_25_SWEEP_ALONE, ROUND_25_SWEEP_ALONE

# ... and Part 5 (its mutant first written in the sweep's verdicts): row indices from a table of 2**20 made once, which
# T = 2**20 + 3 now outgrows. No batch has room for a test_rotate_half mutant: it makes a batch of its own
ROUND_25_SWEEP_PART_5 = {
    "rotary_rows_from_a_table_of_2_to_20": ("test_rotate_half", {"rotate_half": "ROWS = torch.arange(1 << 20)\n" + _replaced_code(
        _MODEL["rotate_half"], "pos = (torch.arange(t)[None, :]", "pos = (ROWS[:t][None, :]", once=True)}),
}
MUTANTS.update(ROUND_25_SWEEP_PART_5)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_25_SWEEP_PART_5, "new")

# Red team 26 (tests/redteam/round26/04-verdicts.md), the stride-and-layout student: Part 4 read the slowest pair
# through torch.as_strided with an offset counted from the row's start, but as_strided's storage_offset counts from the
# storage's start. Every row of the hidden tests began at offset 0 (the strided one too), so it passed. Part 4 now reads
# rows that start inside their storage (row 1 of a table; a stride-2 view at offset 1), and Parts 1 and 5 get inputs
# that start inside their storage too. The Part 5 mutant reads the rotated features the same way.
ROUND_26 = {
    "position_as_strided_from_the_storage_start": ("test_position", {"position": position(
        "    step = row.stride(0)\n"
        "    pair = torch.as_strided(row, (2,), (step,), (d - 2) * step)  # sin and cos of the slowest pair\n"
        "    angle = math.atan2(float(pair[0]), float(pair[1])) % (2 * math.pi)\n"
        "    return round(angle / slowest)")}),
    "rotary_features_as_strided_from_the_storage_start": ("test_rotate_half", {"rotate_half": _replaced_code(
        _MODEL["rotate_half"], "a, b = x[..., :half].to(work), x[..., half:rotary_dim].to(work)",
        "a = torch.as_strided(x, x.shape[:-1] + (half,), x.stride(), 0).to(work)\n"
        "    b = torch.as_strided(x, x.shape[:-1] + (half,), x.stride(), half * x.stride(-1)).to(work)", once=True)}),
}
MUTANTS.update(ROUND_26)
ROUND_26_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_26, "alone")

# Round 26 class sweep (tests/redteam/round26/04-sweep-verdicts.md), class U (an answer the text allowed that is slow on
# the hidden cases): a torch operation for every key and head took 15-23 s of CPU at offsets past 2**20, graded
# differently on a busy machine. The text now rules it out with the sizes as the reason, and the hidden test counts the
# operations a call runs (50 per head and query row, and 200 more), so it fails fast and the same everywhere
ROUND_26_SWEEP = {
    "alibi_block_torch_operation_per_key": ("test_alibi_block", {"alibi_block": """
def alibi_block(num_heads, t, offset):
    s = offset + t
    bias = torch.zeros(num_heads, t, s)
    allowed = torch.zeros(t, s, dtype=torch.bool)
    for i in range(t):
        for j in range(s):
            allowed[i, j] = j <= offset + i
            for h in range(num_heads):
                bias[h, i, j] = -(2 ** (-8 * (h + 1) / num_heads)) * abs(offset + i - j)
    return bias, allowed
"""}),
}
# Class R (a size-1 axis beside a longer one): positions squeezed with no dim and the axes put back in front, so that
# (B, 1) with B > 1 gives a (1, B, D) table; every (., 1) positions tensor of the hidden tests was a batch of one. Part 1
# now also encodes positions of shape (3, 1) and (2, 1, 4)
ROUND_26_SWEEP["table_positions_squeezed_and_put_back_in_front"] = ("test_table_halves", {"table_halves": table(
    pos="positions.to(work).squeeze().reshape((1,) * (positions.dim() - positions.squeeze().dim()) + positions.squeeze().shape)[..., None]")})
# Class S (a non-contiguous layout that lets .view through): Part 8 took the largest gap through diff.view(-1), which
# fails when the layer returns a non-contiguous output (then the difference is too); every layer of the hidden tests
# returned contiguous outputs. Part 8 now passes layers whose outputs are (B, T, D) views of (T, B, D) and (B, D, T)
ROUND_26_SWEEP["equivariance_gap_through_a_flat_view"] = ("test_equivariance", {"equivariance": equivariance(
    gap="(layer(x[:, perm]).double() - reference[:, perm].double()).view(-1).abs().max().item()")})
MUTANTS.update(ROUND_26_SWEEP)
ROUND_26_SWEEP_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_26_SWEEP, "alone")
assert not ROUND_26_SWEEP_ALONE, ROUND_26_SWEEP_ALONE


# Round 26's class sweep (tests/redteam/round26/04-sweep-verdicts.md): the mutant no existing batch had room for,
# in a batch of its own
MUTANTS["partial_rope_loop_over_rows"] = ("test_rotate_half", {"rotate_half": """
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError(f"rotary_dim must be even and between 2 and Dh={dh}, got {rotary_dim}")
    half = rotary_dim // 2
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    rows = []
    for i in range(t):  # one row at a time: its position in each sequence
        pos = (i - (t - lengths.long())).clamp(min=0).double()  # (B,)
        angle = pos[:, None, None] * theta  # (B, 1, R/2)
        cos, sin = angle.cos().to(work), angle.sin().to(work)
        a, bb = x[:, :, i, :half].to(work), x[:, :, i, half:rotary_dim].to(work)
        rows.append(torch.cat([(a * cos - bb * sin).to(x.dtype), (a * sin + bb * cos).to(x.dtype), x[:, :, i, rotary_dim:]], dim=-1))
    return torch.stack(rows, dim=2) if rows else x.clone()
"""})
place_mutants(MUTANTS, MUTANT_BATCHES, ["partial_rope_loop_over_rows"], "new")

# Red team 27 (tests/redteam/round27/04-verdicts.md), the epsilon-adder: a floor on the frequencies "so that none is
# zero", clamp(min=1e-8) in Part 1 and clamp(min=1e-9) in Part 5, changed nothing the hidden tests tried (their bases and
# scales kept every frequency at or above 6e-6). Part 1 now encodes with base 1e12 stretched 1e6 times (d_model = 8)
# and with base 1e30 (d_model = 6), Part 5 rotates with base 1e30 (R = 4), where the slowest frequencies are 1e-15 and
# below; Part 7 already had its case (shift_floors_the_frequencies), Parts 2 and 4 have fixed slopes and bases
ROUND_27 = {
    "table_floors_the_frequencies": ("test_table_halves", {"table_halves": table().replace(
        "    angle = ", "    freq = freq.clamp(min=1e-8)\n    angle = ", 1)}),
    "partial_rope_floors_the_frequencies": ("test_rotate_half", {"rotate_half": partial_rope().replace(
        "    angle = pos.double()", "    theta = theta.clamp(min=1e-9)\n    angle = pos.double()", 1)}),
}
assert all("clamp(min=1e-" in next(iter(cells.values())) for _, cells in ROUND_27.values())
MUTANTS.update(ROUND_27)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_27), "new")

# Round 27 class sweep (tests/redteam/round27/04-sweep-verdicts.md), class V (a floor below every value the hidden cases
# reach): Part 2's distance floored at 1e-6 ("no zero distance") gives the diagonal a bias of -m 1e-6 instead of 0, which
# the hidden test's absolute 1e-6 let through; the bias is now compared relatively only (the text's relative 1e-6)
ROUND_27_SWEEP = {
    "alibi_distance_floored": ("test_alibi_block", {"alibi_block": _replaced_code(
        _MODEL["alibi_block"], "distance = (query_pos - key_pos).abs()",
        "distance = (query_pos - key_pos).abs().double().clamp(min=1e-6)", once=True)}),
}
MUTANTS.update(ROUND_27_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_27_SWEEP), "new")

# Red team 28 (tests/redteam/round28/04-verdicts.md). The fallback writer: a block with no queries answered with
# (H, 0, 0) and (0, 0) tables (Part 2 now has T = 0 cases, and its text says so); an empty x in Part 5 handed back as
# it is (the write into x that proves a new result changes no entry of an empty tensor: Part 5 now asks _owned) or as
# a new torch.empty(x.shape) with no autograd history (Part 5 now takes the gradient with no rows and in an empty
# batch). The spec-lawyer: Part 4's angle read from the sine alone, the cosine's sign picking the half, which loses
# digits in float32 near the quarter turn (Part 4 now tries a block of positions there for every width). Part 5's in-place section now uses int32 lengths
# and a strided x too (the memoizer's class, whose mutant is chapter 3's left_padded_lengths_converted_and_kept_per_id:
# lengths.long() kept per id(lengths) is the int64 lengths themselves, a copy of narrower ones).
_ROPE_BODY = "    half = rotary_dim // 2\n"
ROUND_28 = {
    "alibi_no_queries_square_tables": ("test_alibi_block", {"alibi_block": _replaced_code(
        _MODEL["alibi_block"], "    slopes = 2.0",
        "    if t == 0:  # no queries: nothing to bias\n"
        "        return torch.zeros(num_heads, 0, 0), torch.zeros(0, 0, dtype=torch.bool)\n    slopes = 2.0", once=True)}),
    "partial_rope_empty_x_returned_as_is": ("test_rotate_half", {"rotate_half": _replaced_code(
        _MODEL["rotate_half"], _ROPE_BODY, "    if x.numel() == 0:  # nothing to rotate\n        return x\n" + _ROPE_BODY,
        once=True)}),
    "partial_rope_empty_x_answered_with_new_empty": ("test_rotate_half", {"rotate_half": _replaced_code(
        _MODEL["rotate_half"], _ROPE_BODY,
        "    if x.numel() == 0:  # nothing to rotate\n        return torch.empty(x.shape, dtype=x.dtype)\n" + _ROPE_BODY,
        once=True)}),
    "position_from_the_sine_with_the_cosines_sign": ("test_position", {"position": _replaced_code(
        _MODEL["position"], "    angle = math.atan2(sin, cos) % (2 * math.pi)",
        "    angle = math.asin(max(-1.0, min(1.0, sin)))\n    if cos < 0:\n        angle = math.pi - angle", once=True)}),
}
MUTANTS.update(ROUND_28)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_28), "new")

# Round 28 class sweep (tests/redteam/round28/04-sweep-verdicts.md). Class Y: something kept per id() and the version
# counter _version of the caller's tensors, which a write through .data (an optimizer's p.data update) leaves where it
# was: the in-place sections of Parts 1, 4, 5 and 8 wrote with _scribble or an index assignment (which move the
# counter); they now also write new values through .data and call right after the call before. Class AA: something
# converted and kept per id() is the input itself for the int64 positions and float64 rows those sections used (Parts 1
# and 4 now use a strided int32 positions tensor and a strided float32 row). Class AC: Part 2's tables memoized under
# (t, offset) without num_heads; Part 2 now calls with the same t and offset and another num_heads in a row. Class AB:
# Part 8's gap below finfo(float64).tiny taken as 0.
ROUND_28_SWEEP = {
    "table_halves_angles_cached_by_id_and_version": ("test_table_halves", {"table_halves": KEPT_BY_VERSION + _replaced_code(
        _MODEL["table_halves"], "    angle = positions.to(torch.float64).unsqueeze(-1) * stretched ** -exponents",
        "    angle = kept_by_version([positions], lambda: positions.to(torch.float64).unsqueeze(-1)) * stretched ** -exponents",
        once=True)}),
    "table_halves_positions_converted_and_kept_per_id": ("test_table_halves", {"table_halves": "PER_ID = {}\n" + _replaced_code(
        _MODEL["table_halves"], "    angle = positions.to(torch.float64)",
        "    positions = PER_ID.setdefault(id(positions), (positions, positions.long()))[1]  # converted once per tensor\n"
        "    angle = positions.to(torch.float64)", once=True)}),
    "position_cached_by_id_and_version": ("test_position", {"position": KEPT_BY_VERSION + _replaced_code(
        _MODEL["position"], "    sin, cos = float(row[-2]), float(row[-1])",
        "    sin, cos = kept_by_version([row], lambda: (float(row[-2]), float(row[-1])))", once=True)}),
    "position_row_converted_and_kept_per_id": ("test_position", {"position": "PER_ID = {}\n" + _replaced_code(
        _MODEL["position"], "    d = row.shape[-1]",
        "    row = PER_ID.setdefault(id(row), (row, row.double()))[1]  # converted once per tensor\n    d = row.shape[-1]",
        once=True)}),
    "partial_rope_positions_cached_by_id_and_version": ("test_rotate_half", {"rotate_half": KEPT_BY_VERSION + _replaced_code(
        _MODEL["rotate_half"], "    first_real = t - lengths.long()",
        "    first_real = t - kept_by_version([lengths], lambda: lengths.long().clone())", once=True)}),
    "equivariance_reference_cached_by_id_and_version": ("test_equivariance", {"equivariance": KEPT_BY_VERSION + _replaced_code(
        _MODEL["equivariance"], "        reference = layer(x)",
        "        reference = kept_by_version([x], lambda: (layer, layer(x)))\n"
        "        reference = reference[1] if reference[0] is layer else layer(x)", once=True)}),
    # class AB: a gap below float64's smallest normal number taken as 0 ("rounding noise"); Part 8 now has gaps of
    # 1e-310 and 1e-40 (float32 outputs) with tol = 0 and tol equal to the gap
    "equivariance_subnormal_gap_taken_as_zero": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"], "    worst = max(gaps)\n",
        "    worst = max(gaps)\n    if worst < torch.finfo(torch.float64).tiny:  # below the normal range: rounding noise\n"
        "        worst = 0.0\n", once=True)}),
    "alibi_memoized_without_num_heads": ("test_alibi_block", {"alibi_block": "MEMO = {}\n" + _replaced_code(_replaced_code(
        _MODEL["alibi_block"], "def alibi_block(num_heads, t, offset):\n",
        "def alibi_block(num_heads, t, offset):\n    if (t, offset) in MEMO:  # the block's tables, once per shape\n"
        "        return tuple(r.clone() for r in MEMO[t, offset])\n", once=True),
        "    return bias, key_pos <= query_pos",
        "    MEMO[t, offset] = bias, key_pos <= query_pos\n    return tuple(r.clone() for r in MEMO[t, offset])", once=True)}),
}
MUTANTS.update(ROUND_28_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_28_SWEEP), "new")

# Round 29 (tests/redteam/round29/04-verdicts.md), the chunker: the largest difference taken as a running maximum over
# chunks of 4096 entries, the last shorter chunk never looked at. Part 8 now has an output of 1031 rows (a prime) of 9
# features whose only gap is in the last row.
ROUND_29 = {
    "equivariance_chunks_drop_the_last": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"],
        "            gaps.append((layer(x[:, perm]).double() - reference[:, perm].double()).abs().max().item())  # largest entry",
        "            a, b = layer(x[:, perm]).reshape(-1), reference[:, perm].reshape(-1)\n"
        "            size = min(4096, a.numel())  # a running maximum over chunks of 4096 entries\n"
        "            gaps.append(max((a[s0:s0 + size].double() - b[s0:s0 + size].double()).abs().max().item()\n"
        "                            for s0 in range(0, a.numel() - size + 1, size)))", once=True)}),
}
MUTANTS.update(ROUND_29)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29), "new")

# Round 29 class sweep (tests/redteam/round29/04-sweep-verdicts.md). Class AG (the last, shorter piece dropped): pieces
# of up to 4096 whose last shorter piece is never written slipped wherever every hidden size was below one piece:
# Part 1 (positions; frequency columns), Part 2 (query rows), Part 5 (rotated pairs), Part 7 (rotation blocks). Now
# 4099 positions and d_model = 8198, T = 1031 queries, rotary_dim = 8198 and d_model = 2062. Class AH (a derivative
# wrong only at exactly 0): Part 5 a pair of zeros passed through by torch.where; now a gradient check on an x with
# entries exactly 0. Every batch holds a Part 5 mutant, so the one Part 5 mutant here (the AH one) gets a batch of its own,
# which the others do not join; Part 5's AG case (rotary_dim = 8198) has no mutant, to add no second batch.
ROUND_29_SWEEP = {
    "table_halves_positions_in_pieces_of_4096_last_dropped": ("test_table_halves", {"table_halves": _replaced_code(
        _MODEL["table_halves"],
        "    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)  # (..., D)",
        "    flat = angle.reshape(-1, angle.shape[-1])\n"
        "    out = torch.zeros(flat.shape[0], d_model, dtype=torch.float64)\n"
        "    for s0 in range(0, max(flat.shape[0] - 4096 + 1, 1), 4096):  # pieces of 4096 positions\n"
        "        out[s0:s0 + 4096] = torch.cat([flat[s0:s0 + 4096].sin(), flat[s0:s0 + 4096].cos()], dim=-1)\n"
        "    return out.reshape(*angle.shape[:-1], d_model).to(dtype)", once=True)}),
    "table_halves_frequencies_in_pieces_of_512_last_dropped": ("test_table_halves", {"table_halves": _replaced_code(
        _MODEL["table_halves"],
        "    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)  # (..., D)",
        "    half = d_model // 2\n"
        "    out = torch.zeros(*angle.shape[:-1], d_model, dtype=torch.float64)\n"
        "    for f0 in range(0, max(half - 512 + 1, 1), 512):  # pieces of 512 frequencies\n"
        "        out[..., f0:f0 + 512] = angle[..., f0:f0 + 512].sin()\n"
        "        out[..., half + f0:half + f0 + 512] = angle[..., f0:f0 + 512].cos()\n"
        "    return out.to(dtype)", once=True)}),
    "alibi_query_pieces_of_1024_last_dropped": ("test_alibi_block", {"alibi_block": _replaced_code(
        _MODEL["alibi_block"],
        "    return bias, key_pos <= query_pos",
        "    allowed = key_pos <= query_pos\n"
        "    keep = t if t < 1024 else t - t % 1024  # query rows in pieces of 1024\n"
        "    bias[:, keep:], allowed[keep:] = 0.0, False\n"
        "    return bias, allowed", once=True)}),
    "partial_rope_zero_pairs_passed_through_by_where": ("test_rotate_half", {"rotate_half": _replaced_code(
        _MODEL["rotate_half"],
        "    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)\n",
        "    zero = (a == 0) & (b == 0)  # a pair of zeros turns into zeros: pass it through\n"
        "    rotated = torch.cat([torch.where(zero, a, a * cos - b * sin), torch.where(zero, b, a * sin + b * cos)],\n"
        "                        dim=-1).to(x.dtype)\n", once=True)}),
    "shift_pairs_in_pieces_of_512_last_dropped": ("test_shift", {"shift": _replaced_code(
        _MODEL["shift"], "    i = torch.arange(half)\n",
        "    keep = half if half < 512 else half - half % 512  # the blocks in pieces of 512 pairs\n"
        "    i = torch.arange(keep)\n    c, s = c[:keep], s[:keep]\n", once=True)}),
}
MUTANTS.update(ROUND_29_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29_SWEEP), "new")


# Red team 30 (tests/redteam/round30/04-verdicts.md). The validator: negative positions refused (or clamped to 0), which
# the text allows (int8 positions; Part 7's negative offsets as positions); Part 1 now has negative positions and its text
# says so. The incremental student: `equivariant` set from each trial in turn, so that the last trial decides (or the
# first); Part 8 now has three trials whose last (then first) permutation is the identity. The second-call student: a
# torch.set_grad_enabled(False) ... (True) pair inside a function switches the grad mode on for a caller inside
# torch.no_grad(); Parts 1, 2, 4, 5, 7 and 8 are now also called inside torch.no_grad() and check that it stays off (Part
# 5's mutant was run by hand: every batch holds a Part 5 mutant, and a batch of its own costs more than it proves).
def _grad_switched(code, line):
    """``code`` with ``line`` (a line of it, kept once) run between torch.set_grad_enabled(False) and (True)."""
    indent = line[:len(line) - len(line.lstrip())]
    return _replaced_code(code, line, f"{indent}torch.set_grad_enabled(False)  # needs no gradient\n{line}"
                                      f"{indent}torch.set_grad_enabled(True)\n", once=True)


ROUND_30 = {
    "table_halves_refuses_negative_positions": ("test_table_halves", {"table_halves": _replaced_code(
        _MODEL["table_halves"], '        raise ValueError(f"d_model must be even and at least 4, got {d_model}")\n',
        '        raise ValueError(f"d_model must be even and at least 4, got {d_model}")\n'
        '    if positions.numel() and int(positions.min()) < 0:\n'
        '        raise ValueError("positions must be non-negative")\n', once=True)}),
    "table_halves_clamps_negative_positions": ("test_table_halves", {"table_halves": _replaced_code(
        _MODEL["table_halves"], "positions.to(torch.float64)", "positions.clamp(min=0).to(torch.float64)", once=True)}),
    "equivariance_last_trial_decides": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"], "    return worst <= tol, float(worst)", "    return gaps[-1] <= tol, float(worst)", once=True)}),
    "equivariance_first_trial_decides": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"], "    return worst <= tol, float(worst)", "    return gaps[0] <= tol, float(worst)", once=True)}),
    "table_halves_grad_mode_switched_on": ("test_table_halves", {"table_halves": _grad_switched(
        _MODEL["table_halves"], "    exponents = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model  # (D/2,)\n")}),
    "alibi_grad_mode_switched_on": ("test_alibi_block", {"alibi_block": _grad_switched(
        _MODEL["alibi_block"], "    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)  # (H,)\n")}),
    "position_grad_mode_switched_on": ("test_position", {"position": _grad_switched(
        _MODEL["position"], "    sin, cos = float(row[-2]), float(row[-1])\n")}),
    "shift_grad_mode_switched_on": ("test_shift", {"shift": _grad_switched(
        _MODEL["shift"], "    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # (D/2,)\n")}),
    "equivariance_grad_mode_switched_on": ("test_equivariance", {"equivariance": _replaced_code(_replaced_code(
        _MODEL["equivariance"], "    with torch.no_grad():\n", "    torch.set_grad_enabled(False)  # a test needs no gradient\n"
        "    if True:\n", once=True), "    worst = max(gaps)\n", "    torch.set_grad_enabled(True)\n    worst = max(gaps)\n",
        once=True)}),
}
MUTANTS.update(ROUND_30)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30), "new")
# Red team 30, after grading: the default dtype set to float64 for a function's own work and "put back" as float32, not
# as the dtype the caller had (S2, which slipped once the grader no longer flagged set_default_dtype as tampering).
# Parts 1, 5, 7 and 8 are now also called with float64 as the default dtype, which must still be float64 after the call.
ROUND_30_DTYPE = {
    "table_halves_default_dtype_reset_to_float32": ("test_table_halves", {"table_halves": _replaced_code(
        _MODEL["table_halves"], "    exponents = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model  # (D/2,)\n",
        "    torch.set_default_dtype(torch.float64)  # angles in double precision\n"
        "    exponents = torch.arange(0, d_model, 2) / d_model  # (D/2,)\n"
        "    torch.set_default_dtype(torch.float32)  # back to the default\n", once=True)}),
}
MUTANTS.update(ROUND_30_DTYPE)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30_DTYPE), "new")


# Round 30 class sweep (tests/redteam/round30/04-sweep-verdicts.md): AJ, an input written in place with the values it
# held (version counters of every tensor argument now compared, in every dtype a part takes), and AL, a converted
# copy of an input kept per id() with the original alive beside it (same objects in float32/float16/bfloat16 now)
ROUND_30_SWEEP = {
    # AJ: positions clamped in place to their dtype's lowest value
    'table_halves_positions_clamped_in_place': ('test_table_halves', {'table_halves': '\ndef sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):\n    if d_model % 2 or d_model < 4:\n        raise ValueError(f"d_model must be even and at least 4, got {d_model}")\n    positions.clamp_(min=torch.iinfo(positions.dtype).min)\n    stretched = base * scale ** (d_model / (d_model - 2))\n    exponents = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model\n    angle = positions.to(torch.float64).unsqueeze(-1) * stretched ** -exponents\n    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)\n'}),
    # AJ: row nan_to_num_ in place
    'position_row_nan_to_num_in_place': ('test_position', {'position': '\ndef position_from_encoding(row):\n    d = row.shape[-1]\n    with torch.no_grad():\n        row.nan_to_num_()\n    slowest = 10000.0 ** (-(d - 2) / d)\n    sin, cos = float(row[-2]), float(row[-1])\n    angle = math.atan2(sin, cos) % (2 * math.pi)\n    return round(angle / slowest)\n'}),
    # AJ: lengths clamped in place to >= 0
    'rope_lengths_clamped_in_place': ('test_rotate_half', {'rotate_half': '\ndef rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):\n    t, dh = x.shape[-2:]\n    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:\n        raise ValueError(f"rotary_dim must be even and between 2 and Dh={dh}, got {rotary_dim}")\n    lengths.clamp_(min=0)\n    half = rotary_dim // 2\n    first_real = t - lengths.long()\n    pos = (torch.arange(t)[None, :] - first_real[:, None]).clamp(min=0)\n    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)\n    angle = pos.to(torch.float64)[:, None, :, None] * theta\n    work = torch.float64 if x.dtype == torch.float64 else torch.float32\n    cos, sin = angle.cos().to(work), angle.sin().to(work)\n    a, b = x[..., :half].to(work), x[..., half:rotary_dim].to(work)\n    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)\n    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)\n'}),
    # AJ: x NaN-masked in place under no_grad
    'equivariance_x_nan_masked_in_place': ('test_equivariance', {'equivariance': "\ndef check_equivariance(layer, x, trials, generator, tol=1e-5):\n    t = x.shape[1]\n    with torch.no_grad():\n        x.masked_fill_(x != x, float('nan'))\n        reference = layer(x)\n        gaps = []\n        for _ in range(trials):\n            perm = torch.randperm(t, generator=generator)\n            gaps.append((layer(x[:, perm]).double() - reference[:, perm].double()).abs().max().item())\n    worst = max(gaps)\n    return worst <= tol, float(worst)\n"}),
    # AL: the float32 copy of a half x kept per id()
    'rope_x_work_copy_kept_per_id': ('test_rotate_half', {'rotate_half': '\nCONVERTED = {}\ndef converted(t, dtype=torch.float64):\n    kept = CONVERTED.get((id(t), dtype))\n    if kept is None or kept[0] is not t:  # the original is kept alive beside its copy: its id() is never reused\n        kept = CONVERTED[(id(t), dtype)] = (t, t.to(dtype))\n    return kept[1]\n\ndef rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):\n    t, dh = x.shape[-2:]\n    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:\n        raise ValueError(f"rotary_dim must be even and between 2 and Dh={dh}, got {rotary_dim}")\n    half = rotary_dim // 2\n    first_real = t - lengths.long()\n    pos = (torch.arange(t)[None, :] - first_real[:, None]).clamp(min=0)\n    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)\n    angle = pos.to(torch.float64)[:, None, :, None] * theta\n    work = torch.float64 if x.dtype == torch.float64 else torch.float32\n    cos, sin = angle.cos().to(work), angle.sin().to(work)\n    xw = converted(x, work)\n    a, b = xw[..., :half], xw[..., half:rotary_dim]\n    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)\n    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)\n'}),
}
MUTANTS.update(ROUND_30_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30_SWEEP), "new")


# Sweep 31 (tests/redteam/round31/04-sweep.md). Class AK, left open by round 30's sweep: the gradient path cut for half
# precision only (Part 5 now compares float16 and bfloat16 gradients with float64 ones). Class AO: a setting changed
# inside a function and put back as the default rather than as it was found (every part now also calls its function
# through _settings_kept, with every setting the grader checks away from its default); one setting per part.
ROUND_31_SWEEP = {
    # AK: the partner half detached for half x only
    "rope_half_partner_detached": ("test_rotate_half", {"rotate_half": _replaced_code(
        _MODEL["rotate_half"], "    a, b = x[..., :half].to(work), x[..., half:rotary_dim].to(work)",
        "    partner = x[..., half:rotary_dim]\n"
        "    if x.dtype in (torch.float16, torch.bfloat16):\n"
        "        partner = partner.detach()\n"
        "    a, b = x[..., :half].to(work), partner.to(work)", once=True)}),
    # AO: print options changed for a debug line and put back with the default profile
    "table_halves_print_options_put_back_default": ("test_table_halves", {"table_halves": _replaced_code(
        _MODEL["table_halves"], "    stretched = base * scale ** (d_model / (d_model - 2))\n",
        "    torch.set_printoptions(precision=10)  # to inspect the angles\n"
        "    stretched = base * scale ** (d_model / (d_model - 2))\n"
        "    torch.set_printoptions(profile=\"default\")\n", once=True)}),
    # AO: the default dtype set to float64 for the slopes and put back as float32
    "alibi_default_dtype_put_back_float32": ("test_alibi_block", {"alibi_block": _replaced_code(
        _MODEL["alibi_block"], "    query_pos = torch.arange(offset, offset + t)[:, None]",
        "    torch.set_default_dtype(torch.float64)\n"
        "    query_pos = torch.arange(offset, offset + t)[:, None]\n"
        "    torch.set_default_dtype(torch.float32)", once=True)}),
    # AO: two threads for the reading, then one, the count the grader's kernels start with, rather than the count found
    "position_threads_put_back_as_one": ("test_position", {"position": _replaced_code(
        _MODEL["position"], "    sin, cos = float(row[-2]), float(row[-1])\n",
        "    torch.set_num_threads(2)\n"
        "    sin, cos = float(row[-2]), float(row[-1])\n"
        "    torch.set_num_threads(1)\n", once=True)}),
    # AO: anomaly detection switched on around the rotation and put back off
    "rope_anomaly_detection_put_back_off": ("test_rotate_half", {"rotate_half": _replaced_code(
        _MODEL["rotate_half"], "    rotated = torch.cat(",
        "    torch.autograd.set_detect_anomaly(True)  # a NaN in the backward pass names its operation\n"
        "    rotated = torch.cat(", once=True).replace(
        "    return torch.cat([rotated,", "    torch.autograd.set_detect_anomaly(False)\n    return torch.cat([rotated,")}),
    # AO: flush-denormal switched on for the matrix and put back off
    "shift_flush_denormal_put_back_off": ("test_shift", {"shift": _replaced_code(
        _MODEL["shift"], "    c, s = torch.cos(offset * freq), torch.sin(offset * freq)\n",
        "    torch.set_flush_denormal(True)  # tiny sines need not be exact\n"
        "    c, s = torch.cos(offset * freq), torch.sin(offset * freq)\n"
        "    torch.set_flush_denormal(False)\n", once=True)}),
    # AO: the float32 matmul precision lowered for the trials and put back as "highest"
    "equivariance_matmul_precision_put_back_highest": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"], "    t = x.shape[1]\n",
        "    t = x.shape[1]\n"
        "    torch.set_float32_matmul_precision(\"high\")  # faster trials\n", once=True).replace(
        "    worst = max(gaps)\n", "    torch.set_float32_matmul_precision(\"highest\")\n    worst = max(gaps)\n")}),
}
MUTANTS.update(ROUND_31_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP), "new")


# Red team 31 (tests/redteam/round31/04-verdicts.md), the Python-scalar student: Part 7's offsets far out. The hidden
# tests went to offsets of 30 001 only, so an offset passed through float32 (torch.tensor(float(offset)), a 0-d float32
# tensor) and an angle reduced modulo the float 2 * math.pi both slipped; Part 7 now checks the frequency-1 pair at
# offsets 2**24 + 1, 3, 5 and 10**12 and 2**53 - 1 (both signs) to 1e-9, and its text says to keep the offset exact.
ROUND_31_RED_TEAM = {
    "shift_offset_through_float32": ("test_shift", {"shift": _replaced_code(
        _MODEL["shift"], "    c, s = torch.cos(offset * freq), torch.sin(offset * freq)\n",
        "    offset = torch.tensor(float(offset))  # a 0-d tensor of the offset (float32)\n"
        "    c, s = torch.cos(offset * freq), torch.sin(offset * freq)\n", once=True)}),
    "shift_angle_reduced_by_float_two_pi": ("test_shift", {"shift": """
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(half):
        angle = math.fmod(offset * base ** (-2 * i / d_model), 2 * math.pi)  # keep the angle small
        m[i, i] = m[i + half, i + half] = math.cos(angle)
        m[i + half, i], m[i, i + half] = math.sin(angle), -math.sin(angle)
    return m
"""}),
}
MUTANTS.update(ROUND_31_RED_TEAM)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_RED_TEAM), "new")


# Red team 32 (tests/redteam/round32/04-verdicts.md), the integer-range student. Part 1: int64 positions passed through
# int32 "to treat every integer dtype alike" (the hidden positions stopped at 10**8 + 7, inside int32's range); Part 1
# now checks int64 positions past 2**31 and 2**32, both signs, to 1e-5, and its text says so. Part 8: the differences
# widened to float32 only (promote_types(dtype, float32)), exact for the float16 cases there were; Part 8 now has a
# bfloat16 pair 6e38 apart (inf in float32) and a float16 pair 60000 - 2**-24 apart (rounded to 60000 in float32).
ROUND_32 = {
    "table_halves_positions_through_int32": ("test_table_halves", {"table_halves": _replaced_code(
        _MODEL["table_halves"], "positions.to(torch.float64)", "positions.to(torch.int32).to(torch.float64)",
        once=True)}),
    "equivariance_differences_in_float32": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"],
        "(layer(x[:, perm]).double() - reference[:, perm].double())",
        "(layer(x[:, perm]).to(torch.promote_types(reference.dtype, torch.float32))"
        " - reference[:, perm].to(torch.promote_types(reference.dtype, torch.float32)))", once=True)}),
}
MUTANTS.update(ROUND_32)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_32), "new")


# Sweep 32 (tests/redteam/round32/04-sweep.md), class AV: a slice from a negative start at a length of 0, both closed
# before. Part 2: the queries' positions cut from the keys' with [-t:], every key's position for T = 0. Part 5: the
# padding rows' positions zeroed with pos[b, :-n], none of them for a sequence of length 0.
SWEEP_32 = {
    "alibi_block_queries_from_minus_t": ("test_alibi_block", {"alibi_block": _replaced_code(
        _MODEL["alibi_block"], "    query_pos = torch.arange(offset, offset + t)[:, None]",
        "    query_pos = torch.arange(offset + t)[-t:][:, None]", once=True)}),
    "partial_rope_padding_zeroed_up_to_minus_length": ("test_rotate_half", {"rotate_half": _replaced_code(
        _MODEL["rotate_half"], "    pos = (torch.arange(t)[None, :] - first_real[:, None]).clamp(min=0)",
        "    pos = torch.arange(t)[None, :] - first_real[:, None]\n"
        "    for i, n in enumerate(lengths.tolist()):\n"
        "        pos[i, :-n] = 0", once=True)}),
}
MUTANTS.update(SWEEP_32)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_32), "new")


# Red team 33 (tests/redteam/round33/04-verdicts.md), the side-effect student: Part 8's module left changed other than in
# its mode (a forward hook that turns its outputs to float64 left registered; its parameters frozen with
# requires_grad_(False); their .grad cleared with zero_grad()), and the .grad a caller's tensor holds cleared. Part 8 now
# calls a module with a parameter that holds a .grad before and after the answer and checks its hooks, flags and .grad;
# Part 5 passes an x that holds a .grad.
ROUND_33 = {
    "equivariance_float64_hook_left_registered": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"], "    t = x.shape[1]\n",
        "    t = x.shape[1]\n"
        "    if isinstance(layer, torch.nn.Module):  # compare the outputs in float64\n"
        "        layer.register_forward_hook(lambda module, args, out: out.double())\n", once=True)}),
    "equivariance_layer_frozen": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"], "    t = x.shape[1]\n",
        "    t = x.shape[1]\n"
        "    if isinstance(layer, torch.nn.Module):\n"
        "        layer.requires_grad_(False)  # a test needs no gradient\n", once=True)}),
    "equivariance_zero_grad": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"], "    t = x.shape[1]\n",
        "    t = x.shape[1]\n"
        "    if isinstance(layer, torch.nn.Module):\n"
        "        layer.zero_grad()  # leave no gradients behind\n", once=True)}),
    "partial_rope_clears_x_grad": ("test_rotate_half", {"rotate_half": _replaced_code(
        _MODEL["rotate_half"], "    half = rotary_dim // 2\n",
        "    half = rotary_dim // 2\n"
        "    x.grad = None  # the rotation's gradient starts from nothing\n", once=True)}),
}
MUTANTS.update(ROUND_33)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33), "new")


# Sweep 33 (tests/redteam/round33/04-sweep.md). Class BA (one statistic for the whole tensor): Part 8's differences
# scaled by the largest output (a power of two, exact) to keep their squares in range, which squares the differences of
# rows near 1e-140 beside rows near 1e140 to 0; Part 8 now has such outputs, the only gaps in the small rows. Class BB (a
# .grad the caller holds): Part 8's x.grad cleared; Part 8 now passes an x that holds a .grad.
SWEEP_33 = {
    "equivariance_squares_scaled_by_the_largest_output": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"],
        "            gaps.append((layer(x[:, perm]).double() - reference[:, perm].double()).abs().max().item())"
        "  # largest entry\n",
        "            out, ref = layer(x[:, perm]).double(), reference[:, perm].double()\n"
        "            # one scale for the whole output (a power of two: exact) keeps the squares in range\n"
        "            top = torch.maximum(out.abs().amax(), ref.abs().amax())\n"
        "            top = torch.where(torch.isfinite(top) & (top > 0), top, torch.ones_like(top))\n"
        "            scale = torch.pow(2.0, torch.frexp(top).exponent.double())\n"
        "            d = (out - ref) / scale\n"
        "            gaps.append(((d * d).amax().sqrt() * scale).item())\n", once=True)}),
    "equivariance_clears_x_grad": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"], "    t = x.shape[1]\n",
        "    t = x.shape[1]\n    x.grad = None  # a test leaves no gradient behind\n", once=True)}),
}
MUTANTS.update(SWEEP_33)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_33), "new")
# Class BF (a constant object returned on an edge branch), caught before: Part 7's identity made once per width and
# returned at offset 0 (the hidden tests write into the offset-0 matrix and call again). Kept where a batch has room.
SWEEP_33_CAUGHT = {
    "shift_identity_kept_for_offset_0": ("test_shift", {"shift": "IDENTITY = {}\n" + _replaced_code(
        _MODEL["shift"], "    half = d_model // 2\n",
        "    if offset == 0:  # no shift: the identity, made once per width\n"
        "        if d_model not in IDENTITY:\n"
        "            IDENTITY[d_model] = torch.eye(d_model, dtype=torch.float64)\n"
        "        return IDENTITY[d_model]\n"
        "    half = d_model // 2\n", once=True)}),
}
MUTANTS.update(SWEEP_33_CAUGHT)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_33_CAUGHT), "drop")  # no batch with room: not kept


# Sweep 34 (tests/redteam/round34/04-sweep.md). Class BH (a float just beside its special value taken as that value):
# Part 1's scale within 1e-9 of 1 taken as 1 (math.isclose: "scale = 1 gives the plain table"), which no hidden scale came
# near (1, 2, 3, ... 1e6); Part 1 now has scales 1 + 2**-30 and 1 + 2**-40 at base 10, d_model 4, positions near 3000 in
# float64, and its text says a scale just above 1 is not 1. Class BJ (a bound the text states, taken tighter): Part 7's
# offsets went to 2**53 - 1, below the text's |k| < 2**63, so a check refusing offsets past 2**53 and an offset made an
# int64 tensor with torch.arange(offset, offset + 1) (offset + 1 overflows int64 at 2**63 - 1) both kept the points;
# Part 7 now has offsets +-(2**63 - 1).
SWEEP_34 = {
    "table_halves_scale_isclose_to_one_as_one": ("test_table_halves", {"table_halves": _replaced_code(
        _MODEL["table_halves"], "    stretched = base * scale ** (d_model / (d_model - 2))\n",
        "    if math.isclose(scale, 1.0):  # scale = 1 gives the plain table\n"
        "        scale = 1.0\n"
        "    stretched = base * scale ** (d_model / (d_model - 2))\n", once=True)}),
    "shift_refuses_offsets_past_2_53": ("test_shift", {"shift": _replaced_code(
        _MODEL["shift"], "    half = d_model // 2\n",
        "    if abs(offset) >= 2 ** 53:  # float64 holds every integer only below 2**53\n"
        "        raise ValueError(f\"offset {offset} is too large to be exact in float64\")\n"
        "    half = d_model // 2\n", once=True)}),
    "shift_offset_through_arange": ("test_shift", {"shift": _replaced_code(
        _MODEL["shift"], "    c, s = torch.cos(offset * freq), torch.sin(offset * freq)\n",
        "    k = torch.arange(offset, offset + 1).to(torch.float64)  # the offset as an int64 tensor, then float64\n"
        "    c, s = torch.cos(k * freq), torch.sin(k * freq)\n", once=True)}),
}
MUTANTS.update(SWEEP_34)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_34), "new")
# Classes BH and BI caught before, kept where a batch has room: Part 8's tol below 1e-12 taken as 0 ("that small means
# exact"; the case of a subnormal gap with tol equal to it), and Part 4's angle from atan2 left in (-pi, pi], a negative
# position past half a turn of the slowest pair (PE[9935] at width 16).
SWEEP_34_CAUGHT = {
    "equivariance_tiny_tol_taken_as_zero": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"], "    return worst <= tol, float(worst)",
        "    if tol < 1e-12:  # a tol that small means exact\n        tol = 0.0\n"
        "    return worst <= tol, float(worst)", once=True)}),
    "position_atan2_not_turned_positive": ("test_position", {"position": _replaced_code(
        _MODEL["position"], "    angle = math.atan2(sin, cos) % (2 * math.pi)  # in [0, 2 pi)\n",
        "    angle = math.atan2(sin, cos)\n", once=True)}),
}
MUTANTS.update(SWEEP_34_CAUGHT)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_34_CAUGHT), "drop")  # no batch with room: not kept


# Red team 34 (tests/redteam/round34/04-verdicts.md). Part 2 (the magic-number student): the bias clamped at -65504 "so
# that it stays finite in float16", which no hidden case reached (the farthest bias was about -17 500); Part 2 now has
# (8, 1, 300 007), whose steepest head reaches about -150 000. Part 8 (the module-registration student): the mode put
# back with layer.train(layer.training), which sets every submodule to the top flag; requires_grad_(True) on every
# parameter after the test, which unfreezes frozen ones; the layer called through .forward, which skips its hooks; and
# torch's global random state saved and put back between the two calls of a trial, so that a dropout drawing from it
# drops the same entries twice. Part 8 now has a model with a block in the other mode and frozen parameters, modules with
# a forward hook and a forward pre-hook, and a dropout drawing from the global generator at T = 1.
ROUND_34 = {
    "alibi_block_clamped_at_float16_min": ("test_alibi_block", {"alibi_block": _replaced_code(
        _MODEL["alibi_block"], "    return bias, key_pos <= query_pos",
        "    bias = bias.clamp(min=-65504.0)  # stays finite if the caller uses float16\n"
        "    return bias, key_pos <= query_pos", once=True)}),
    "equivariance_mode_put_back_with_train_flag": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"], "    worst = max(gaps)\n",
        "    worst = max(gaps)\n"
        "    if isinstance(layer, torch.nn.Module):\n"
        "        layer.train(layer.training)  # put the mode back as it was\n", once=True)}),
    "equivariance_parameters_thawed_after": ("test_equivariance", {"equivariance": _replaced_code(_replaced_code(
        _MODEL["equivariance"], "    t = x.shape[1]\n",
        "    t = x.shape[1]\n"
        "    params = list(layer.parameters()) if isinstance(layer, torch.nn.Module) else []\n"
        "    for p in params:\n"
        "        p.requires_grad_(False)  # no graph while testing\n", once=True),
        "    worst = max(gaps)\n",
        "    worst = max(gaps)\n"
        "    for p in params:\n"
        "        p.requires_grad_(True)\n", once=True)}),
    "equivariance_forward_skips_hooks": ("test_equivariance", {"equivariance": _replaced_code(
        _MODEL["equivariance"], "    t = x.shape[1]\n",
        "    t = x.shape[1]\n"
        "    layer = layer.forward if isinstance(layer, torch.nn.Module) else layer  # skip the __call__ overhead\n",
        once=True)}),
    "equivariance_global_rng_replayed": ("test_equivariance", {"equivariance": _replaced_code(_replaced_code(
        _MODEL["equivariance"], "        reference = layer(x)\n",
        "        state = torch.get_rng_state()  # every call draws the same dropout mask: a fair comparison\n"
        "        reference = layer(x)\n", once=True),
        "            perm = torch.randperm(t, generator=generator)\n",
        "            perm = torch.randperm(t, generator=generator)\n"
        "            torch.set_rng_state(state)\n", once=True)}),
}
MUTANTS.update(ROUND_34)
# no batch has room for a test_equivariance mutant (a batch names each graded test once): one new batch at most, the
# other Part 8 mutants each run alone
place_mutants(MUTANTS, MUTANT_BATCHES, ["alibi_block_clamped_at_float16_min", "equivariance_mode_put_back_with_train_flag"],
              "new")
place_mutants(MUTANTS, MUTANT_BATCHES, ["equivariance_parameters_thawed_after", "equivariance_forward_skips_hooks",
                                        "equivariance_global_rng_replayed"], "alone")


# Round 35 class sweep (tests/redteam/round35/04-sweep.md, class BK): Part 7 built on Part 5's rotation or Part 1's
# table called outside their texts; both slipped before this round (the stand-ins were wider than the texts)
ROUND_35_SWEEP = {
    "shift_via_rope_lengths_past_t": ("test_shift", {"shift": """
def shift_matrix_halves(offset, d_model, base=10000.0):
    eye = torch.eye(d_model, dtype=torch.float64).reshape(1, d_model, 1, d_model)  # one row in each of D heads
    # Part 5 turns a single row (T = 1) to position |offset| when lengths = |offset| + 1, past Part 5's 0 <= lengths <= T
    r = rope_partial_left_padded(eye, torch.tensor([abs(offset)]) + 1, d_model, base)[0, :, 0]
    return (r.T if offset >= 0 else r).clone()
"""}),
    "shift_via_table_float_positions": ("test_shift", {"shift": """
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    at = torch.tensor([float(offset)], dtype=torch.float64)  # a float position: Part 1 promises integer ones
    if d_model >= 4:
        row = sinusoidal_table_halves(at, d_model, base, dtype=torch.float64)[0]
        s, c = row[:half], row[half:]
    else:
        row = sinusoidal_table_halves(at, 4, base, dtype=torch.float64)[0]
        s, c = row[:1], row[2:3]
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i], m[i + half, i] = c, s
    m[i, i + half], m[i + half, i + half] = -s, c
    return m
"""}),
}
MUTANTS.update(ROUND_35_SWEEP)
ROUND_35_SWEEP_DROPPED = place_mutants(MUTANTS, MUTANT_BATCHES, ["shift_via_rope_lengths_past_t"], "new")
ROUND_35_SWEEP_DROPPED += place_mutants(MUTANTS, MUTANT_BATCHES, ["shift_via_table_float_positions"], "drop")
