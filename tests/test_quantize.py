"""INT8 per-channel and INT4 group-wise weight quantisation (chapter 7)."""

import pytest
import torch
from torch import nn

from attnlab.quantize import QuantizedLinear, dequantize_int4, dequantize_int8, quantize_int4, quantize_int8


def test_int8_error_is_at_most_half_a_step_per_channel():
    torch.manual_seed(0)
    w = torch.randn(16, 32) * torch.logspace(-2, 1, 16)[:, None]  # channels of very different ranges
    q, scale = quantize_int8(w)
    assert q.dtype == torch.int8 and scale.shape == (16, 1)
    assert ((dequantize_int8(q, scale) - w).abs() <= scale / 2 + 1e-7).all()
    assert (q.abs().amax(dim=1) == 127).all()  # each channel uses its full range


def test_int4_packs_two_values_per_byte_and_round_trips_exact_grid_values():
    scale = torch.tensor([[0.5, 2.0]])
    ints = torch.arange(-8, 8, dtype=torch.float32).repeat(2)  # every 4-bit value in both groups
    w = ints.reshape(1, 2, 16).mul(scale[..., None]).reshape(1, 32)
    w[0, 0] = -7 * 0.5  # keep |max| = 7 steps so the scale is exact
    w[0, 16] = -7 * 2.0
    packed, s = quantize_int4(w, group_size=16)
    assert packed.dtype == torch.uint8 and packed.shape == (1, 16)
    torch.testing.assert_close(s, scale)
    torch.testing.assert_close(dequantize_int4(packed, s), w)
    assert int(packed[0, 1]) == (-6 + 8) | ((-5 + 8) << 4)  # low nibble = even index


def test_int4_smaller_groups_give_smaller_error():
    torch.manual_seed(1)
    w = torch.randn(64, 256)
    errs = [(dequantize_int4(*quantize_int4(w, g)) - w).norm() for g in (256, 64, 16)]
    assert errs[0] > errs[1] > errs[2]
    with pytest.raises(ValueError, match="group_size"):
        quantize_int4(w, 48)


def test_quantized_linear_is_close_to_float_and_smaller():
    torch.manual_seed(2)
    lin = nn.Linear(128, 64)
    x = torch.randn(10, 128)
    ref = lin(x)
    for bits, tol, ratio in ((8, 0.01, 3.8), (4, 0.15, 6.0)):
        ql = QuantizedLinear(lin, bits, group_size=32)
        rel = ((ql(x) - ref).norm() / ref.norm()).item()
        assert rel < tol, (bits, rel)
        assert lin.weight.numel() * 4 / ql.weight_bytes() > ratio
    with pytest.raises(ValueError):
        QuantizedLinear(lin, bits=3)
