"""FLOPs, bytes moved and the roofline model (chapter 7).

An operation that does ``F`` floating-point operations and moves ``B`` bytes between memory and
the processor has *arithmetic intensity* ``I = F / B``. On a device that peaks at ``P`` FLOP/s and
``W`` bytes/s it cannot run faster than ``min(P, I * W)`` FLOP/s (Williams et al., 2009): below the
ridge point ``I = P / W`` it is **memory-bound**, above it **compute-bound**. The counts here are
the minimum traffic (each input read once, each output written once).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from attnlab.profiling import median_time


@dataclass(frozen=True)
class Cost:
    """Floating-point operations and bytes moved by one operation."""

    name: str
    flops: float
    bytes: float

    @property
    def intensity(self) -> float:
        """FLOPs per byte moved."""
        return self.flops / self.bytes


def matmul_cost(m: int, k: int, n: int, bytes_per_value: int = 4, name: str = "matmul") -> Cost:
    """``(m, k) @ (k, n)``: ``2mkn`` FLOPs (a multiply and an add each), reads ``mk + kn``, writes ``mn``."""
    if min(m, k, n) < 1 or bytes_per_value < 1:
        raise ValueError(f"sizes must be positive, got m={m}, k={k}, n={n}, bytes={bytes_per_value}")
    return Cost(name, 2.0 * m * k * n, float(bytes_per_value * (m * k + k * n + m * n)))


# start-costs
def attention_costs(n: int, d_model: int, heads: int, batch: int = 1, bytes_per_value: int = 4) -> list[Cost]:
    """The operations of one self-attention layer over ``n`` tokens, unfused (each result goes to memory).

    Softmax counts about 5 FLOPs per score (max, subtract, exp, sum, divide).
    """
    b, dh, e = batch, d_model // heads, bytes_per_value
    if d_model % heads:
        raise ValueError(f"d_model={d_model} is not divisible by heads={heads}")
    return [
        matmul_cost(b * n, d_model, 3 * d_model, e, "QKV projection"),
        Cost("scores Q Kᵀ", 2.0 * b * heads * n * n * dh, e * b * heads * (2 * n * dh + n * n)),
        Cost("softmax", 5.0 * b * heads * n * n, e * b * heads * 2 * n * n),
        Cost("weights @ V", 2.0 * b * heads * n * n * dh, e * b * heads * (n * n + 2 * n * dh)),
        matmul_cost(b * n, d_model, d_model, e, "output projection"),
    ]


def ffn_costs(n: int, d_model: int, d_ff: int, batch: int = 1, bytes_per_value: int = 4) -> list[Cost]:
    """The position-wise feed-forward block: two matmuls and the ReLU between them."""
    e = bytes_per_value
    return [
        matmul_cost(batch * n, d_model, d_ff, e, "FFN up"),
        Cost("ReLU", float(batch * n * d_ff), float(e * 2 * batch * n * d_ff)),
        matmul_cost(batch * n, d_ff, d_model, e, "FFN down"),
    ]
# end-costs


# start-roofline
def attainable_flops(intensity: float, peak_flops: float, bandwidth: float) -> float:
    """The roofline: ``min(peak, intensity × bandwidth)`` FLOP/s."""
    if intensity < 0 or peak_flops <= 0 or bandwidth <= 0:
        raise ValueError("intensity must be >= 0 and peak, bandwidth > 0")
    return min(peak_flops, intensity * bandwidth)


def bound_by(intensity: float, peak_flops: float, bandwidth: float) -> str:
    """``"memory"`` if the operation sits left of the ridge point ``peak / bandwidth``, else ``"compute"``."""
    if peak_flops <= 0 or bandwidth <= 0:
        raise ValueError("peak and bandwidth must be positive")
    return "memory" if intensity < peak_flops / bandwidth else "compute"
# end-roofline


def measure_matmul_flops(device: torch.device | str = "cpu", size: int = 1024, dtype=torch.float32,
                         repeats: int = 5) -> float:
    """Measured FLOP/s of a square ``size × size`` matmul on ``device`` (median of ``repeats``)."""
    a = torch.randn(size, size, device=device, dtype=dtype)
    b = torch.randn(size, size, device=device, dtype=dtype)
    seconds = median_time(lambda: a @ b, device, repeats=repeats)
    return 2.0 * size ** 3 / seconds


def measure_bandwidth(device: torch.device | str = "cpu", megabytes: int = 256, repeats: int = 5) -> float:
    """Measured bytes/s of copying a ``megabytes`` float32 buffer (each byte read once, written once)."""
    n = megabytes * 2 ** 20 // 4
    src = torch.randn(n, device=device)
    dst = torch.empty_like(src)
    seconds = median_time(lambda: dst.copy_(src), device, repeats=repeats)
    return 2.0 * n * 4 / seconds
