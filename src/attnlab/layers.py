"""The pieces of a Transformer layer (chapter 5): LayerNorm, the position-wise feed-forward
network, and encoder and decoder layers in Post-LN (the paper) or Pre-LN arrangement."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attnlab.multihead import MultiHeadAttention


# start-layernorm
class LayerNorm(nn.Module):
    """Normalise each position's feature vector to mean 0 and variance 1, then scale and shift.

    The variance is the *biased* one (divide by ``D``), as in :class:`torch.nn.LayerNorm`.
    With ``fused=True`` (the default) the same arithmetic runs as PyTorch's single
    ``F.layer_norm`` kernel, which is faster in training; ``fused=False`` runs the formula below.

    Shape:
        x: ``(..., D)`` -> ``(..., D)``
    """

    def __init__(self, d_model: int, eps: float = 1e-5, fused: bool = True, device=None, dtype=None):
        super().__init__()
        self.eps, self.fused = eps, fused
        self.weight = nn.Parameter(torch.ones(d_model, device=device, dtype=dtype))
        self.bias = nn.Parameter(torch.zeros(d_model, device=device, dtype=dtype))

    def forward(self, x: Tensor) -> Tensor:
        if self.fused:
            return F.layer_norm(x, self.weight.shape, self.weight, self.bias, self.eps)
        mean = x.mean(dim=-1, keepdim=True)  # (..., 1)
        var = x.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
# end-layernorm


# start-ffn
class FeedForward(nn.Module):
    """``linear2(dropout(activation(linear1(x))))``, applied to every position separately.

    ``activation`` is ``"relu"`` (the paper) or ``"gelu"`` (BERT, GPT and seed 001).

    Shape:
        x: ``(..., D)`` -> ``(..., D)`` via ``(..., F)``
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, activation: str = "relu", device=None, dtype=None):
        super().__init__()
        if activation not in ("relu", "gelu"):
            raise ValueError(f"activation must be 'relu' or 'gelu', got {activation!r}")
        self.activation = F.relu if activation == "relu" else F.gelu
        self.linear1 = nn.Linear(d_model, d_ff, device=device, dtype=dtype)
        self.linear2 = nn.Linear(d_ff, d_model, device=device, dtype=dtype)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        return self.linear2(self.dropout(self.activation(self.linear1(x))))  # (.., D) -> (.., F) -> (.., D)
# end-ffn


# start-encoder-layer
class EncoderLayer(nn.Module):
    """Self-attention and feed-forward sublayers, each wrapped in a residual connection.

    ``norm_first=False`` is the paper's Post-LN, ``x = norm(x + sublayer(x))``;
    ``norm_first=True`` is Pre-LN, ``x = x + sublayer(norm(x))``.

    Shape:
        x: ``(B, S, D)``, allowed: ``(B, 1, S)`` or ``(S, S)`` -> ``(B, S, D)``
    """

    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.0, activation: str = "relu",
                 norm_first: bool = False, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, **factory)
        self.ff = FeedForward(d_model, d_ff, dropout, activation, **factory)
        self.norm1, self.norm2 = LayerNorm(d_model, **factory), LayerNorm(d_model, **factory)
        self.dropout1, self.dropout2 = nn.Dropout(dropout), nn.Dropout(dropout)

    def forward(self, x: Tensor, allowed: Tensor | None = None) -> Tensor:
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout1(self.self_attn(h, allowed=allowed)[0])
            return x + self.dropout2(self.ff(self.norm2(x)))
        x = self.norm1(x + self.dropout1(self.self_attn(x, allowed=allowed)[0]))
        return self.norm2(x + self.dropout2(self.ff(x)))
# end-encoder-layer


# start-decoder-layer
class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder's output, and feed-forward.

    ``cache`` (a dict, empty at the first step) enables incremental decoding: the layer then
    receives only the newest target positions and keeps the keys and values of earlier ones.

    Shape:
        x: ``(B, T, D)``, memory: ``(B, S, D)``, self_allowed: ``(T, T)`` or ``(B, T, T)``,
        memory_allowed: ``(B, 1, S)`` -> ``(B, T, D)``
    """

    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.0, activation: str = "relu",
                 norm_first: bool = False, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, **factory)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, **factory)
        self.ff = FeedForward(d_model, d_ff, dropout, activation, **factory)
        self.norm1, self.norm2, self.norm3 = (LayerNorm(d_model, **factory) for _ in range(3))
        self.dropout1, self.dropout2, self.dropout3 = (nn.Dropout(dropout) for _ in range(3))

    def forward(self, x: Tensor, memory: Tensor, self_allowed: Tensor | None = None,
                memory_allowed: Tensor | None = None, cache: dict | None = None) -> Tensor:
        self_cache = cross_cache = None
        if cache is not None:
            self_cache, cross_cache = cache.setdefault("self", {}), cache.setdefault("cross", {})

        def self_block(h):
            return self.dropout1(self.self_attn(h, allowed=self_allowed, cache=self_cache)[0])

        def cross_block(h):
            return self.dropout2(self.cross_attn(h, memory, memory_allowed, cache=cross_cache)[0])

        if self.norm_first:
            x = x + self_block(self.norm1(x))
            x = x + cross_block(self.norm2(x))
            return x + self.dropout3(self.ff(self.norm3(x)))
        x = self.norm1(x + self_block(x))
        x = self.norm2(x + cross_block(x))
        return self.norm3(x + self.dropout3(self.ff(x)))
# end-decoder-layer
