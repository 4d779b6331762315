"""A toy selective state-space scan (chapter 6), the recurrence at the heart of Mamba.

Each of ``Dm`` channels keeps ``N`` state numbers. With input-dependent step ``Δ_t``, ``B_t`` and
``C_t`` (that dependence is what "selective" means), the discretised recurrence is

    h_t = exp(Δ_t · A) ⊙ h_{t-1} + Δ_t · B_t · x_t,      y_t = C_t · h_t

Cost per token is ``O(Dm · N)`` whatever the position, and the state has a fixed size: there is
no cache that grows with the sequence. Real Mamba runs this as a hardware-aware parallel scan;
this module loops over time to keep the recurrence readable.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn


# start-scan
def selective_scan(x: Tensor, delta: Tensor, a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    """Run the recurrence sequentially over time.

    Shape:
        x, delta: ``(B, T, Dm)``, a: ``(Dm, N)`` (negative for stability), b, c: ``(B, T, N)``
        -> ``(B, T, Dm)``
    """
    batch, t, dm = x.shape
    h = x.new_zeros(batch, dm, a.shape[-1])  # (B, Dm, N) the whole memory of the past
    ys = []
    for i in range(t):
        decay = torch.exp(delta[:, i, :, None] * a)  # (B, Dm, 1) * (Dm, N) -> (B, Dm, N)
        h = decay * h + (delta[:, i, :, None] * b[:, i, None, :]) * x[:, i, :, None]  # (B, Dm, N)
        ys.append((h * c[:, i, None, :]).sum(-1))  # (B, Dm, N) · (B, 1, N) -> (B, Dm)
    return torch.stack(ys, dim=1)
# end-scan


class SelectiveSSM(nn.Module):
    """Input-dependent ``Δ``, ``B``, ``C`` from linear maps of ``x``, and a learned negative ``A``.

    Shape:
        x: ``(B, T, Dm)`` -> ``(B, T, Dm)``
    """

    def __init__(self, d_model: int, state: int = 8, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        a = torch.arange(1, state + 1, device=device, dtype=dtype or torch.get_default_dtype())
        self.log_a = nn.Parameter(torch.log(a).repeat(d_model, 1))  # (Dm, N): A = -1..-N in every channel
        self.to_delta = nn.Linear(d_model, d_model, **factory)
        self.to_b = nn.Linear(d_model, state, bias=False, **factory)
        self.to_c = nn.Linear(d_model, state, bias=False, **factory)

    def forward(self, x: Tensor) -> Tensor:
        return selective_scan(x, F.softplus(self.to_delta(x)), -torch.exp(self.log_a), self.to_b(x), self.to_c(x))
