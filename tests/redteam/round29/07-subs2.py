# Round 29, 07-hardware, second wave (written after phase 1 for Parts 3, 5, 6, 8, whose hidden tests I had not read)
import importlib.util, sys
_spec = importlib.util.spec_from_file_location("first", "tests/redteam/round29/07-subs.py")
_first = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(_first)
B, sub, edit = _first.B, _first.sub, _first.edit

SUBMISSIONS = [
    sub("re2-round-after-adding-zero", False,
        "Part 5 step 4: 'q = clamp(round(w / scale) + zero, ...)': round(w / scale + zero) differs on half steps where "
        "zero is odd (halves to even: round(2.5) + 1 = 3, round(3.5) = 4).",
        quantize_asym=edit("quantize_asym", "torch.round(g / scale[..., None]) + zero[..., None]",
                           "torch.round(g / scale[..., None] + zero[..., None])")),
    sub("re2-zero-from-span", False,
        "Part 5 step 3: 'zero = round(-lo / scale)': -lo * levels / (hi - lo) rounds differently on half steps.",
        quantize_asym=edit("quantize_asym", "zero = torch.clamp(torch.round(-lo / scale), 0, levels)",
                           "zero = torch.clamp(torch.round(torch.where(span == 0, torch.zeros_like(lo), -lo * levels / torch.where(span == 0, torch.ones_like(span), span))), 0, levels)")),
    sub("re2-multiply-by-inverse-scale", False,
        "Part 5: 'on a half step, round(w / scale) depends on the dtype the division is done in': w * (1 / scale) is "
        "another rounding, off by an ulp on some half steps.",
        quantize_asym=edit("quantize_asym", "torch.round(g / scale[..., None])", "torch.round(g * (1 / scale)[..., None])")),
    sub("re2-decimal-ceil", False,
        "Part 3: 'some answers are ... far beyond (1e40 and more)': Decimal's default 28 digits round the quotient.",
        compute_bound_batch='''
from decimal import Decimal


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if a <= 0:
        return None
    c = peak * bytes_per_value * k * n
    return max(1, int((Decimal(c) / Decimal(a)).to_integral_value(rounding="ROUND_CEILING")))
'''),
    sub("re2-unpack-float-matmul", True,
        "Part 6: the codes rebuilt from their bits with a float32 product by the powers of two (exact below 2**24).",
        pack_bits=edit("pack_bits", "    return (stream.reshape(rows, cols, bits) << shifts).sum(dim=-1).to(torch.uint8)",
                       "    powers = (2 ** shifts).to(torch.float32)\n    return (stream.reshape(rows, cols, bits).to(torch.float32) @ powers).to(torch.uint8)")),
    sub("ai2-pack-nibble-fast-path", True,
        "Part 6: the page's 4-bit layout as a fast path for bits = 4 (odd counts padded with a zero code), the "
        "bit stream otherwise.",
        pack_bits=edit("pack_bits", "    rows, cols = q.shape\n",
                       "    rows, cols = q.shape\n    if bits == 4:\n        even = torch.zeros(rows, 2 * ((cols + 1) // 2), dtype=torch.uint8)\n"
                       "        even[:, :cols] = q\n        return even[:, 0::2] | (even[:, 1::2] << 4)\n")),
    sub("re2-kernel-scale-first", True,
        "Part 8: x times the scale first, then times (c - z): the same sum in float32, another order.",
        split_kv_kernel=edit("split_kv_kernel", "        wv = (code - z).to(tl.float32) * s\n        acc += tl.sum(wv * x[None, :], axis=1)\n",
                             "        xs = x[None, :] * s\n        acc += tl.sum(xs * (code - z).to(tl.float32), axis=1)\n")),
    sub("ch2-kernel-k-mask-always", True,
        "Part 8: column mask cols < K on every load of x and the weights (never false: K is a multiple of BLOCK_K).",
        split_kv_kernel=edit("split_kv_kernel", "        x = tl.load(X + cols)\n", "        x = tl.load(X + cols, mask=cols < K, other=0.0)\n")),
]
