"""The pieces of a Llama-style block (chapter 9): RMSNorm and the SwiGLU feed-forward network."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn


# start-rmsnorm
class RMSNorm(nn.Module):
    """Divide each feature vector by its root mean square, then scale: ``x / sqrt(mean(x²) + eps) * g``.

    Unlike LayerNorm there is no mean subtracted and no bias (Zhang & Sennrich, 2019). The
    arithmetic runs in float32 at least and the result has the dtype of ``x``, as in Llama.

    Shape:
        x: ``(..., D)`` -> ``(..., D)``
    """

    def __init__(self, d_model: int, eps: float = 1e-6, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model, device=device, dtype=dtype))

    def forward(self, x: Tensor) -> Tensor:
        h = x.to(torch.promote_types(x.dtype, torch.float32))
        h = h * torch.rsqrt(h.pow(2).mean(dim=-1, keepdim=True) + self.eps)  # (..., D) * (..., 1)
        return (self.weight * h.to(x.dtype)).to(x.dtype)  # a float32 weight must not promote a bf16 x
# end-rmsnorm


# start-swiglu
def swiglu_hidden_width(d_model: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None) -> int:
    """Llama's hidden width: ``8/3 · D`` (so three matrices cost what two of width ``4D`` do), times
    ``ffn_dim_multiplier`` if given, rounded up to a multiple of ``multiple_of``.

    Llama 2 7B: ``swiglu_hidden_width(4096) == 11008``; Llama 3 8B:
    ``swiglu_hidden_width(4096, 1024, 1.3) == 14336``.
    """
    if d_model < 1 or multiple_of < 1:
        raise ValueError(f"d_model and multiple_of must be positive, got {d_model} and {multiple_of}")
    hidden = int(2 * (4 * d_model) / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


class SwiGLU(nn.Module):
    """``w2(SiLU(w1 x) ⊙ w3 x)``: a gated feed-forward network without biases (Shazeer, 2020).

    ``w1`` is the gate (Hugging Face: ``gate_proj``), ``w3`` the value it gates (``up_proj``) and
    ``w2`` the way back to the model width (``down_proj``).

    Shape:
        x: ``(..., D)`` -> ``(..., D)`` via ``(..., F)``
    """

    def __init__(self, d_model: int, hidden: int, bias: bool = False, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.w1 = nn.Linear(d_model, hidden, bias=bias, **factory)
        self.w3 = nn.Linear(d_model, hidden, bias=bias, **factory)
        self.w2 = nn.Linear(hidden, d_model, bias=bias, **factory)

    def forward(self, x: Tensor) -> Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))  # (..., D) -> (..., F) ⊙ (..., F) -> (..., D)
# end-swiglu
