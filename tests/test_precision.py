"""Floating-point formats: ranges, overflow, FP8 round trips (chapter 7)."""

import torch

from attnlab.precision import format_table, relative_error, round_trip


def test_format_table_gives_the_known_limits():
    rows = {r["format"]: r for r in format_table()}
    assert rows["float16"]["max"] == 65504 and rows["fp8 e4m3"]["max"] == 448 and rows["fp8 e5m2"]["max"] == 57344
    assert rows["bfloat16"]["max"] > 1e38 and rows["bfloat16"]["eps"] == 2**-7


def test_fp16_overflows_where_bf16_does_not():
    x = torch.tensor([300.0])
    assert torch.isinf((x.half() * x.half())).all()
    assert torch.isfinite(x.bfloat16() * x.bfloat16()).all()


def test_fp8_saturates_and_scaling_rescues_small_values():
    big = torch.tensor([1000.0, -1e6])
    assert round_trip(big, torch.float8_e4m3fn).tolist() == [448.0, -448.0]
    torch.manual_seed(0)
    tiny = torch.randn(1000) * 1e-3  # mostly below e4m3's smallest normal (2^-6)
    unscaled = relative_error(round_trip(tiny, torch.float8_e4m3fn), tiny)
    scaled = relative_error(round_trip(tiny, torch.float8_e4m3fn, scaled=True), tiny)
    assert scaled < 0.05 < 0.3 < unscaled
    assert relative_error(round_trip(tiny, torch.float16), tiny) < relative_error(round_trip(tiny, torch.bfloat16), tiny)
