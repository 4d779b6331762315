"""Floating-point formats for training and inference: ranges, rounding, FP8 (chapter 7).

fp16 has 5 exponent bits and overflows above 65504; bf16 keeps float32's 8 exponent bits (same
range) with only 7 mantissa bits. The two FP8 formats of Micikevicius et al. (2022) trade the same
way: e4m3 (max 448, finer steps) for weights and activations, e5m2 (max 57344) for gradients.
FP8 tensors need a scale so that their values land inside that small range.
"""

from __future__ import annotations

import torch
from torch import Tensor

FORMATS = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "fp8 e4m3": torch.float8_e4m3fn,
    "fp8 e5m2": torch.float8_e5m2,
}


# start-formats
def format_table() -> list[dict]:
    """Bits, largest value, smallest normal value and relative step (eps) of each format, from ``torch.finfo``."""
    rows = []
    for name, dtype in FORMATS.items():
        info = torch.finfo(dtype)
        rows.append({"format": name, "bits": info.bits, "max": float(info.max),
                     "smallest normal": float(info.tiny), "eps": float(info.eps)})
    return rows


def round_trip(x: Tensor, dtype: torch.dtype, scaled: bool = False) -> Tensor:
    """``x`` cast to ``dtype`` and back to ``x.dtype``.

    ``scaled=True`` first multiplies by ``max(dtype) / max|x|`` (per-tensor scaling, as FP8
    training recipes do) and divides it out afterwards. FP8 casts saturate: values beyond the
    format's range are clamped to ±max instead of becoming inf.
    """
    info = torch.finfo(dtype)
    wide = x.double()  # the scaling itself must not overflow or round
    scale = info.max / wide.abs().max().clamp_min(1e-300) if scaled else torch.ones((), dtype=torch.float64)
    y = wide * scale
    if dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        y = y.clamp(-info.max, info.max)
    return (y.to(dtype).double() / scale).to(x.dtype)
# end-formats


def relative_error(approx: Tensor, exact: Tensor) -> float:
    """``‖approx - exact‖ / ‖exact‖``."""
    return ((approx.double() - exact.double()).norm() / exact.double().norm()).item()
