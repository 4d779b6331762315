"""Weight quantisation of a linear layer: INT8 per output channel, INT4 per group (chapter 7).

Symmetric quantisation stores ``w ≈ scale × q`` with an integer ``q`` and one float ``scale``
per output channel (INT8, ``q`` in ``-127..127``) or per group of ``group_size`` consecutive input
weights of a channel (INT4, ``q`` in ``-8..7``, two values packed into each byte). Smaller groups
follow the local range of the weights more closely and cost more scales.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn


# start-int8
def quantize_int8(w: Tensor) -> tuple[Tensor, Tensor]:
    """Per-output-channel symmetric INT8: returns ``(q int8 (out, in), scale (out, 1))``."""
    if w.dim() != 2 or not w.is_floating_point():
        raise ValueError(f"expected a floating (out_features, in_features) weight, got {w.dtype} {tuple(w.shape)}")
    scale = w.abs().amax(dim=1, keepdim=True).clamp_min(1e-12) / 127  # (out, 1)
    q = torch.clamp(torch.round(w / scale), -127, 127).to(torch.int8)
    return q, scale


def dequantize_int8(q: Tensor, scale: Tensor) -> Tensor:
    return q.to(scale.dtype) * scale  # (out, in) * (out, 1)
# end-int8


# start-int4
def quantize_int4(w: Tensor, group_size: int = 64) -> tuple[Tensor, Tensor]:
    """Group-wise symmetric INT4, two weights per byte.

    Returns ``(packed uint8 (out, in/2), scale (out, in/group_size))``; the low nibble of byte
    ``j`` holds weight ``2j``, the high nibble weight ``2j + 1``, each stored as ``q + 8``.
    """
    if w.dim() != 2 or not w.is_floating_point():
        raise ValueError(f"expected a floating (out_features, in_features) weight, got {w.dtype} {tuple(w.shape)}")
    out_f, in_f = w.shape
    if group_size < 2 or group_size % 2 or in_f % group_size:
        raise ValueError(f"group_size must be even and divide in_features={in_f}, got {group_size}")
    groups = w.reshape(out_f, in_f // group_size, group_size)  # (out, G, g)
    scale = groups.abs().amax(dim=-1).clamp_min(1e-12) / 7       # (out, G)
    q = torch.clamp(torch.round(groups / scale[..., None]), -8, 7).reshape(out_f, in_f)
    nibbles = (q + 8).to(torch.uint8)                            # 0..15
    packed = nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)          # (out, in/2)
    return packed, scale


def dequantize_int4(packed: Tensor, scale: Tensor) -> Tensor:
    out_f, half = packed.shape
    group_size = 2 * half // scale.shape[1]
    q = torch.empty(out_f, 2 * half, dtype=torch.int8, device=packed.device)
    q[:, 0::2] = (packed & 0x0F).to(torch.int8) - 8
    q[:, 1::2] = (packed >> 4).to(torch.int8) - 8
    w = q.to(scale.dtype).reshape(out_f, -1, group_size) * scale[..., None]  # (out, G, g) * (out, G, 1)
    return w.reshape(out_f, 2 * half)
# end-int4


class QuantizedLinear(nn.Module):
    """A frozen ``nn.Linear`` whose weight is stored as INT8 or packed INT4.

    The forward pass dequantises the weight and runs a float matmul ("weight-only" quantisation):
    memory shrinks 4x or about 8x; arithmetic stays in float.
    """

    def __init__(self, linear: nn.Linear, bits: int = 8, group_size: int = 64) -> None:
        super().__init__()
        if bits not in (4, 8):
            raise ValueError(f"bits must be 4 or 8, got {bits}")
        self.bits = bits
        w = linear.weight.detach()
        q, scale = quantize_int8(w) if bits == 8 else quantize_int4(w, group_size)
        self.register_buffer("q", q)
        self.register_buffer("scale", scale)
        self.register_buffer("bias", None if linear.bias is None else linear.bias.detach().clone())

    def weight(self) -> Tensor:
        return dequantize_int8(self.q, self.scale) if self.bits == 8 else dequantize_int4(self.q, self.scale)

    def weight_bytes(self) -> int:
        """Bytes of the stored integers plus their scales."""
        return self.q.numel() * self.q.element_size() + self.scale.numel() * self.scale.element_size()

    def forward(self, x: Tensor) -> Tensor:
        return nn.functional.linear(x, self.weight(), self.bias)
