# Red-team round 6, chapter 04 (positional encodings), blind submissions written from the student notebook only.
import textwrap

def c(s):
    return textwrap.dedent(s).strip() + "\n"

GOOD_EQ_HEAD = '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
'''

SUBMISSIONS = [
    # ---------------- Part 1: sines-first table with NTK scaling ----------------
    {"name": "table_integer_exponent", "correct": False, "cells": {"table_halves": c('''
        def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
            if d_model % 2 or d_model < 4:
                raise ValueError("d_model must be even and at least 4")
            half = d_model // 2
            stretched = base * scale ** (d_model // (d_model - 2))     # b' = b * scale^(D/(D-2))
            freq = stretched ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
            angles = positions.to(torch.float64)[..., None] * freq
            return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
        ''')},
     "why": "Part 1: 'the slowest one is divided by scale' - with D // (D - 2) the exponent is 2 for D = 4 (right) "
            "but 1 for every D >= 6, so the slowest frequency is divided by scale^((D-2)/D), not scale."},
    {"name": "table_zero_width_accepted", "correct": False, "cells": {"table_halves": c('''
        def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
            if d_model % 2 or d_model == 2:       # odd, or one single frequency
                raise ValueError("d_model must be even and have at least two frequencies")
            half = d_model // 2
            stretched = base * scale ** (d_model / (d_model - 2))
            freq = stretched ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
            angles = positions.to(torch.float64)[..., None] * freq
            return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
        ''')},
     "why": "Part 1: 'Raise a ValueError when d_model is odd or smaller than 4': d_model = 0 passes the checks and "
            "returns an empty (..., 0) table."},
    {"name": "table_base_as_float32_tensor", "correct": False, "cells": {"table_halves": c('''
        def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
            if d_model % 2 or d_model < 4:
                raise ValueError("d_model must be even and at least 4")
            stretched = torch.tensor(base) * scale ** (d_model / (d_model - 2))   # NTK-aware base
            exponents = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model
            freq = stretched ** (-exponents)                                     # float64 (promoted)
            angles = positions.to(torch.float64).unsqueeze(-1) * freq
            return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
        ''')},
     "why": "Part 1: 'within 1e-11 of the exact values for float64'. torch.tensor(base) is float32, so the stretched "
            "base is rounded to 24 bits whenever base * scale^(D/(D-2)) is not a float32 number (any scale other "
            "than 1 or a power of two, or a base like 10000.5): angles are off by ~1e-5 at position 1000."},
    # ---------------- Part 2: alibi_block ----------------
    {"name": "alibi_lesson_slopes", "correct": False, "cells": {"alibi_block": c('''
        def slopes_for(n):
            def power_of_two(k):
                start = 2.0 ** (-8.0 / k)
                return [start ** (i + 1) for i in range(k)]
            lower = 2 ** math.floor(math.log2(n))
            s = power_of_two(lower)
            if lower < n:
                s += power_of_two(2 * lower)[0::2][: n - lower]
            return torch.tensor(s, dtype=torch.float64)


        def alibi_block(num_heads, t, offset):
            qpos = torch.arange(offset, offset + t)
            kpos = torch.arange(offset + t)
            dist = (qpos[:, None] - kpos[None, :]).abs().to(torch.float64)
            bias = (-slopes_for(num_heads)[:, None, None] * dist).to(torch.float32)
            return bias, kpos[None, :] <= qpos[:, None]
        ''')},
     "why": "Part 2: 'Use this formula for every H (it is not the lesson's rule for numbers of heads that are not a "
            "power of two)': H = 3, 5, 6, ... get the lesson's interleaved slopes."},
    {"name": "alibi_mask_from_tril_of_ones", "correct": False, "cells": {"alibi_block": c('''
        def alibi_block(num_heads, t, offset):
            slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
            qpos = torch.arange(offset, offset + t)
            kpos = torch.arange(offset + t)
            dist = (qpos[:, None] - kpos[None, :]).abs().to(torch.float64)
            bias = (-slopes[:, None, None] * dist).to(torch.float32)
            allowed = torch.ones(t, offset + t).tril(diagonal=offset)   # key j <= offset + i
            return bias, allowed
        ''')},
     "why": "Part 2: 'allowed, boolean': a float 0/1 tril mask compares equal to the booleans in the visible test's "
            "tolist() check, but used as an attention mask it is ADDED to the scores (+1/+0), not applied."},
    {"name": "alibi_slope_precedence_typo", "correct": False, "cells": {"alibi_block": c('''
        def alibi_block(num_heads, t, offset):
            slopes = torch.tensor([2 ** (-8 / num_heads) ** (h + 1) for h in range(num_heads)], dtype=torch.float64)
            qpos = torch.arange(offset, offset + t)
            kpos = torch.arange(offset + t)
            dist = (qpos[:, None] - kpos[None, :]).abs().to(torch.float64)
            bias = (-slopes[:, None, None] * dist).to(torch.float32)
            return bias, kpos[None, :] <= qpos[:, None]
        ''')},
     "why": "Part 2: 'slopes m_h = 2^(-8(h+1)/H)': 2 ** (-8/H) ** (h+1) is 2 ** ((-8/H) ** (h+1)), right for head 0 "
            "only (the visible test checks bias[0] alone)."},
    # ---------------- Part 3: alibi_reach ----------------
    {"name": "reach_steepest_head", "correct": False, "cells": {"reach": c('''
        # exp(-m d) = 1/1000 -> d = ln(1000) / m; the flattest head of H = 8 is head 0, slope 2^(-8/8)
        alibi_reach = math.log(1000) / 2 ** (-8 / 8)
        ''')},
     "why": "Part 3: 'In the flattest head (the smallest slope)': the smallest slope is 2^-8 (head 7), not 2^-1."},
    # ---------------- Part 4: position_from_encoding ----------------
    {"name": "position_atan2_not_wrapped", "correct": False, "cells": {"position": c('''
        def position_from_encoding(row):
            d = row.shape[-1]
            i = d // 2 - 1                                   # slowest pair: never wraps below 10000
            w = 10000.0 ** (-2 * i / d)
            angle = math.atan2(float(row[2 * i]), float(row[2 * i + 1]))
            return int(round(angle / w))
        ''')},
     "why": "Part 4: 'get its angle in [0, 2*pi)': atan2 returns (-pi, pi]; for D = 16 the last pair passes pi at "
            "p = 9935, and positions 9935..9999 come back negative."},
    {"name": "position_pair_rule_of_thumb", "correct": False, "cells": {"position": c('''
        def position_from_encoding(row):
            d = row.shape[-1]
            i = int(0.8 * (d // 2))      # a pair 80 % of the way down: slow enough, and more digits than the last one
            w = 10000.0 ** (-2 * i / d)
            angle = math.atan2(float(row[2 * i]), float(row[2 * i + 1])) % (2 * math.pi)
            return int(round(angle / w))
        ''')},
     "why": "Part 4: 'which pair does not wrap around within this range?': pair int(0.8 * D/2) turns past 2*pi before "
            "p = 10000 (D = 64: at p = 8377; D = 16: at p = 6283)."},
    {"name": "position_truncates", "correct": False, "cells": {"position": c('''
        def position_from_encoding(row):
            d = row.shape[-1]
            i = d // 2 - 1
            w = 10000.0 ** (-2 * i / d)
            angle = math.atan2(float(row[2 * i]), float(row[2 * i + 1])) % (2 * math.pi)
            return int(angle / w + 1e-6)   # positions are whole numbers
        ''')},
     "why": "Part 4: 'it must be exact for float32 rows too': a float32 row gives angle/w = p - 1e-4 or so, and "
            "int() truncates to p - 1."},
    # ---------------- Part 5: partial RoPE, left padded ----------------
    {"name": "rope_ignores_base", "correct": False, "cells": {"rotate_half": c('''
        def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
            b, h, t, dh = x.shape
            r = rotary_dim
            if r % 2 or r < 2 or r > dh:
                raise ValueError("rotary_dim must be even and between 2 and Dh")
            half = r // 2
            theta = 10000.0 ** (-2 * torch.arange(half, dtype=torch.float64) / r)
            m = (torch.arange(t)[None, :] - (t - lengths)[:, None]).clamp(min=0).to(torch.float64)
            ang = m[:, None, :, None] * theta
            cos, sin = ang.cos(), ang.sin()
            x1, x2 = x[..., :half].to(torch.float64), x[..., half:r].to(torch.float64)
            rot = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).to(x.dtype)
            return torch.cat([rot, x[..., r:]], dim=-1)
        ''')},
     "why": "Part 5: 'theta_i = base^(-2i/R)' with the base argument: the answer always uses 10000 (theta_0 = 1 "
            "whatever the base, so R = 2 cannot tell)."},
    {"name": "rope_zero_rotary_dim_accepted", "correct": False, "cells": {"rotate_half": c('''
        def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
            b, h, t, dh = x.shape
            r = rotary_dim
            if r % 2 or r > dh:
                raise ValueError("rotary_dim must be even and at most Dh")
            half = r // 2
            theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / max(r, 1))
            m = (torch.arange(t)[None, :] - (t - lengths)[:, None]).clamp(min=0).to(torch.float64)
            ang = m[:, None, :, None] * theta
            cos, sin = ang.cos(), ang.sin()
            x1, x2 = x[..., :half].to(torch.float64), x[..., half:r].to(torch.float64)
            rot = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).to(x.dtype)
            return torch.cat([rot, x[..., r:]], dim=-1)
        ''')},
     "why": "Part 5: 'Raise a ValueError unless rotary_dim is even and 2 <= rotary_dim <= Dh': rotary_dim = 0 (even, "
            "<= Dh) is accepted and returns x unrotated."},
    {"name": "rope_returns_input_when_all_padding", "correct": False, "cells": {"rotate_half": c('''
        def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
            b, h, t, dh = x.shape
            r = rotary_dim
            if r % 2 or r < 2 or r > dh:
                raise ValueError("rotary_dim must be even and between 2 and Dh")
            if int(lengths.max()) <= 1:
                return x                      # every row is at position 0: nothing to rotate
            half = r // 2
            theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / r)
            m = (torch.arange(t)[None, :] - (t - lengths)[:, None]).clamp(min=0).to(torch.float64)
            ang = m[:, None, :, None] * theta
            cos, sin = ang.cos(), ang.sin()
            x1, x2 = x[..., :half].to(torch.float64), x[..., half:r].to(torch.float64)
            rot = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).to(x.dtype)
            return torch.cat([rot, x[..., r:]], dim=-1)
        ''')},
     "why": "Part 5: 'Return a new tensor in the dtype of x': when no row has a position above 0 (all lengths <= 1, "
            "e.g. T = 1 or an all-padding batch) the answer returns x itself, so writing into the result writes into "
            "the input."},
    {"name": "rope_theta_float32_division", "correct": False, "cells": {"rotate_half": c('''
        def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
            b, h, t, dh = x.shape
            r = rotary_dim
            if r % 2 or r < 2 or r > dh:
                raise ValueError("rotary_dim must be even and between 2 and Dh")
            half = r // 2
            inv_freq = 1.0 / (base ** (torch.arange(0, r, 2) / r))          # as in many code bases
            m = (torch.arange(t)[None, :] - (t - lengths)[:, None]).clamp(min=0)
            ang = m[:, None, :, None].to(torch.float64) * inv_freq.to(torch.float64)
            cos, sin = ang.cos(), ang.sin()
            x1, x2 = x[..., :half].to(torch.float64), x[..., half:r].to(torch.float64)
            rot = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).to(x.dtype)
            return torch.cat([rot, x[..., r:]], dim=-1)
        ''')},
     "why": "Part 5: 'Compute the angles, their sines and cosines in float64': the frequencies come out of a float32 "
            "division (int tensor / int), so float64 rotations at position 1000 are off by ~1e-5, not 1e-12."},
    # ---------------- Part 6: multiple choice ----------------
    {"name": "mc_relative_positions", "correct": False, "cells": {"mc": 'answer_cache = "a"\n'},
     "why": "Part 6: the cached keys keep their old rotation, so the offset seen is shifted by P: (b), not (a)."},
    # ---------------- Part 7: shift matrix, sines first ----------------
    {"name": "shift_matrix_power", "correct": False, "cells": {"shift": c('''
        def shift_matrix_halves(offset, d_model, base=10000.0):
            half = d_model // 2
            w = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
            c, s = w.cos(), w.sin()
            one = torch.zeros(d_model, d_model, dtype=torch.float64)   # the shift by one position
            idx = torch.arange(half)
            one[idx, idx] = c
            one[idx + half, idx + half] = c
            one[idx + half, idx] = s
            one[idx, idx + half] = -s
            return torch.linalg.matrix_power(one, offset)              # shifting k times = M_1^k
        ''')},
     "why": "Part 7: 'the hidden tests check the matrix itself to 1e-12': M_1^k accumulates rounding with k "
            "(offset 10**5: ~1e-11) and, for negative k, inverts the matrix; equal to cos/sin(k w) only for small k."},
    {"name": "shift_interleaved_blocks", "correct": False, "cells": {"shift": c('''
        def shift_matrix_halves(offset, d_model, base=10000.0):
            half = d_model // 2
            w = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
            m = torch.zeros(d_model, d_model, dtype=torch.float64)
            for i in range(half):
                a = offset * float(w[i])
                m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = torch.tensor([[math.cos(a), -math.sin(a)],
                                                                    [math.sin(a), math.cos(a)]], dtype=torch.float64)
            return m
        ''')},
     "why": "Part 7: 'for the sines-first table of Part 1': column i and i + D/2 form a pair, not 2i and 2i + 1 (the "
            "same matrix only for D = 2)."},
    # ---------------- Part 8: check_equivariance ----------------
    {"name": "equivariance_nan_gap_ignored", "correct": False, "cells": {"equivariance": c('''
        def check_equivariance(layer, x, trials, generator, tol=1e-5):
            t = x.shape[1]
            worst = 0.0
            for _ in range(trials):
                perm = torch.randperm(t, generator=generator)
                gap = (layer(x[:, perm]) - layer(x)[:, perm]).abs().max().item()
                worst = max(worst, gap)
            return worst <= tol, worst
        ''')},
     "why": "Part 8: 'equivariant ... True exactly when worst <= tol': a NaN gap (a layer that gives NaN for some "
            "order) is dropped by max(0.0, nan) = 0.0, and the layer is declared equivariant with worst = 0."},
    {"name": "equivariance_redraws_identity", "correct": False, "cells": {"equivariance": c('''
        def check_equivariance(layer, x, trials, generator, tol=1e-5):
            t = x.shape[1]
            worst = 0.0
            for _ in range(trials):
                perm = torch.randperm(t, generator=generator)
                while t > 1 and torch.equal(perm, torch.arange(t)):   # the identity tests nothing: draw again
                    perm = torch.randperm(t, generator=generator)
                worst = max(worst, (layer(x[:, perm]) - layer(x)[:, perm]).abs().max().item())
            return bool(worst <= tol), float(worst)
        ''')},
     "why": "Part 8: 'Draw trials permutations one after another ... and draw nothing else from generator': redrawing "
            "the identity consumes extra permutations whenever one comes up (often for small T)."},
    {"name": "equivariance_signed_max", "correct": False, "cells": {"equivariance": c('''
        def check_equivariance(layer, x, trials, generator, tol=1e-5):
            t = x.shape[1]
            worst = 0.0
            for _ in range(trials):
                perm = torch.randperm(t, generator=generator)
                diff = layer(x[:, perm]) - layer(x)[:, perm]
                worst = max(worst, abs(diff.max().item()))
            return bool(worst <= tol), float(worst)
        ''')},
     "why": "Part 8: 'the gap is the largest absolute difference': abs(max(diff)) misses a larger negative difference."},
    {"name": "equivariance_private_generator_copy", "correct": False, "cells": {"equivariance": c('''
        def check_equivariance(layer, x, trials, generator, tol=1e-5):
            t = x.shape[1]
            g = torch.Generator().set_state(generator.get_state())   # leave the caller's generator untouched
            worst = 0.0
            for _ in range(trials):
                perm = torch.randperm(t, generator=g)
                worst = max(worst, (layer(x[:, perm]) - layer(x)[:, perm]).abs().max().item())
            return bool(worst <= tol), float(worst)
        ''')},
     "why": "Part 8: 'Draw trials permutations one after another, each with torch.randperm(T, generator=generator)': "
            "drawing from a copy leaves the caller's generator where it was, so a second call repeats the same "
            "permutations instead of continuing the stream."},
    {"name": "equivariance_strict_threshold", "correct": False, "cells": {"equivariance": c('''
        def check_equivariance(layer, x, trials, generator, tol=1e-5):
            t = x.shape[1]
            worst = 0.0
            for _ in range(trials):
                perm = torch.randperm(t, generator=generator)
                worst = max(worst, (layer(x[:, perm]) - layer(x)[:, perm]).abs().max().item())
            return bool(worst < tol), float(worst)
        ''')},
     "why": "Part 8: 'a gap equal to tol passes' (classic boundary)."},
    # ---------------- hostile ----------------
    {"name": "hostile_str_equal_to_everything", "correct": False, "cells": {"mc": c('''
        class Any(str):
            def __eq__(self, other):
                return True
            def __ne__(self, other):
                return False
            __hash__ = str.__hash__

        answer_cache = Any("b")
        ''')},
     "hostile": True,
     "why": "hostile: a str subclass equal to every letter."},
    {"name": "hostile_patch_torch_and_helpers", "correct": False, "cells": {"shift": c('''
        import torch.testing
        torch.testing.assert_close = lambda *a, **k: None
        torch.allclose = lambda *a, **k: True
        torch.Tensor.__eq__ = lambda self, other: torch.ones((), dtype=torch.bool)
        globals()["_close"] = lambda *a, **k: None
        globals()["_equal"] = lambda *a, **k: None


        def shift_matrix_halves(offset, d_model, base=10000.0):
            return torch.zeros(d_model, d_model, dtype=torch.float64)
        ''')},
     "hostile": True,
     "why": "hostile: disables torch's comparisons and rebinds the grader's helpers, returns zeros."},
    {"name": "hostile_float_that_lies", "correct": False, "cells": {"reach": c('''
        class Reach(float):
            def __sub__(self, other):
                return 0.0
            def __rsub__(self, other):
                return 0.0
            def __eq__(self, other):
                return True
            def __lt__(self, other):
                return True
            def __gt__(self, other):
                return True
            __hash__ = float.__hash__

        alibi_reach = Reach(1.0)
        ''')},
     "hostile": True,
     "why": "hostile: a float subclass whose differences are 0 and comparisons all True."},
    # ---------------- different but correct ----------------
    {"name": "correct_complex_exponentials", "correct": True, "cells": {
        "table_halves": c('''
        def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
            if d_model % 2 == 1 or d_model < 4:
                raise ValueError("need an even d_model >= 4")
            half = d_model // 2
            # slowest frequency b'^-(D-2)/D = b^-(D-2)/D / scale  =>  log b' = log b + D/(D-2) log scale
            log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
            freq = torch.exp(-log_base * torch.arange(half, dtype=torch.float64) * 2 / d_model)
            z = torch.polar(torch.ones((), dtype=torch.float64), positions.to(torch.float64).unsqueeze(-1) * freq)
            return torch.cat([z.imag, z.real], dim=-1).to(dtype)
        '''),
        "rotate_half": c('''
        def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
            *_, t, dh = x.shape
            if rotary_dim % 2 != 0 or not 2 <= rotary_dim <= dh:
                raise ValueError("rotary_dim must be even and in [2, Dh]")
            half = rotary_dim // 2
            real = torch.arange(t)[None, :] >= (t - lengths)[:, None]        # (B, T): True on real tokens
            pos = (real.to(torch.long).cumsum(dim=1) - 1).clamp(min=0)         # 0 for the first real token
            theta = torch.tensor([base ** (-2 * i / rotary_dim) for i in range(half)], dtype=torch.float64)
            turn = torch.polar(torch.ones((), dtype=torch.float64), pos[:, None, :, None].to(torch.float64) * theta)
            z = torch.complex(x[..., :half].to(torch.float64), x[..., half:rotary_dim].to(torch.float64)) * turn
            return torch.cat([z.real.to(x.dtype), z.imag.to(x.dtype), x[..., rotary_dim:]], dim=-1)
        ''')},
     "why": "correct: the table and the rotation as complex exponentials in complex128; positions from a cumulative "
            "sum of the real-token mask."},
    {"name": "correct_nearest_row_and_block_matrix", "correct": True, "cells": {
        "position": c('''
        def position_from_encoding(row):
            d = row.shape[-1]
            p = torch.arange(10000, dtype=torch.float64)[:, None]
            angles = p * 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
            table = torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(1)   # every candidate row
            distance = ((table - row.to(torch.float64)) ** 2).sum(dim=1)
            return int(distance.argmin())
        '''),
        "shift": c('''
        def shift_matrix_halves(offset, d_model, base=10000.0):
            half = d_model // 2
            a = offset * base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
            cos, sin = torch.diag(a.cos()), torch.diag(a.sin())
            # [sin p, cos p] @ [[C, -S], [S, C]] = [sin p C + cos p S, cos p C - sin p S]
            return torch.cat([torch.cat([cos, -sin], dim=1), torch.cat([sin, cos], dim=1)], dim=0)
        ''')},
     "why": "correct: nearest row of the whole 10000-row table; the shift matrix as a block matrix [[C, -S], [S, C]]."},
    {"name": "correct_layer_once_and_allclose_free", "correct": True, "cells": {
        "alibi_block": c('''
        def alibi_block(num_heads, t, offset):
            n = offset + t
            rows = torch.arange(offset, n, dtype=torch.float64)[:, None]
            cols = torch.arange(n, dtype=torch.float64)[None, :]
            slopes = torch.tensor([math.pow(2.0, -8.0 * (h + 1) / num_heads) for h in range(num_heads)],
                                  dtype=torch.float64)
            bias = torch.einsum("h,tj->htj", slopes, -(rows - cols).abs())
            return bias.float(), cols <= rows
        '''),
        "reach": "alibi_reach = float(256 * math.log(1000.0))\n",
        "equivariance": c('''
        def check_equivariance(layer, x, trials, generator, tol=1e-5):
            reference = layer(x)                     # the layer is a function of its input: compute it once
            gaps = []
            for _ in range(trials):
                perm = torch.randperm(x.shape[1], generator=generator)
                gaps.append((layer(x[:, perm]) - reference[:, perm]).abs().amax().item())
            worst = max(gaps, key=lambda g: (g != g, g))   # a NaN gap wins
            return bool(worst <= tol), float(worst)
        ''')},
     "why": "correct: ALiBi from float64 position grids and einsum; layer(x) computed once; NaN gaps win the max."},
]
