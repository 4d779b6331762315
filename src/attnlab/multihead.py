"""Multi-head attention (chapter 3): split and merge heads, a fused QKV projection, self- and
cross-attention, parity with :class:`torch.nn.MultiheadAttention`, and cost formulas."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attnlab.attention import scaled_dot_product_attention


# start-split-merge
def split_heads(x: Tensor, num_heads: int) -> Tensor:
    """Cut the last dimension into ``num_heads`` heads and move the head axis before the sequence.

    Shape:
        x: ``(B, T, D)`` -> ``(B, H, T, Dh)`` with ``Dh = D / H``
    """
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")
    x = x.reshape(b, t, num_heads, d // num_heads)  # (B, T, D) -> (B, T, H, Dh)
    return x.transpose(1, 2)  # (B, T, H, Dh) -> (B, H, T, Dh)


def merge_heads(x: Tensor) -> Tensor:
    """Inverse of :func:`split_heads`: concatenate the heads back into one vector per position.

    Shape:
        x: ``(B, H, T, Dh)`` -> ``(B, T, H * Dh)``
    """
    b, h, t, dh = x.shape
    x = x.transpose(1, 2)  # (B, H, T, Dh) -> (B, T, H, Dh)
    return x.reshape(b, t, h * dh)  # (B, T, H, Dh) -> (B, T, D)
# end-split-merge


def _heads_mask(allowed: Tensor | None) -> Tensor | None:
    """Give a mask a head axis: ``(T, S)`` stays, ``(B, T, S)`` -> ``(B, 1, T, S)``."""
    if allowed is None:
        return None
    if allowed.dtype != torch.bool:
        raise TypeError(f"the mask must be boolean with True = may attend, got dtype {allowed.dtype}")
    if allowed.dim() == 2 or allowed.dim() == 4:
        return allowed
    if allowed.dim() == 3:
        return allowed[:, None]  # (B, T, S) -> (B, 1, T, S)
    raise ValueError(
        f"mask of shape {tuple(allowed.shape)}: use (T, S), (B, T, S) or (B, H, T, S); "
        "a key-padding mask (B, S) goes through attnlab.combine_masks first"
    )


class MultiHeadAttention(nn.Module):
    """Multi-head attention with a fused query/key/value projection.

    The parameters are laid out as in :class:`torch.nn.MultiheadAttention`
    (``in_proj.weight`` is ``(3D, D)``: the query, key and value projections stacked), so
    :meth:`load_torch_weights` can copy a PyTorch module's weights exactly.

    ``forward(query)`` is self-attention; ``forward(query, memory)`` is cross-attention, with
    queries from ``query`` and keys and values from ``memory``. Masks are boolean, ``True`` =
    may attend, of shape ``(T, S)``, ``(B, T, S)`` or ``(B, H, T, S)``.
    """

    def __init__(self, d_model: int, num_heads: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.d_model, self.num_heads, self.head_dim = d_model, num_heads, d_model // num_heads
        factory = {"device": device, "dtype": dtype}
        self.in_proj = nn.Linear(d_model, 3 * d_model, bias=bias, **factory)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias, **factory)
        nn.init.xavier_uniform_(self.in_proj.weight)
        if bias:
            nn.init.zeros_(self.in_proj.bias)
            nn.init.zeros_(self.out_proj.bias)

    # start-forward
    def forward(
        self,
        query: Tensor,
        memory: Tensor | None = None,
        allowed: Tensor | None = None,
        need_weights: bool = False,
        cache: dict | None = None,
    ) -> tuple[Tensor, Tensor | None]:
        """Return ``(output, weights)``; ``weights`` is ``None`` unless ``need_weights``.

        ``cache`` (a dict, empty at the first step) turns on incremental decoding: in
        self-attention the keys and values of earlier calls are kept and the new ones appended;
        in cross-attention the memory's keys and values are computed once and reused.

        Shape:
            query: ``(B, T, D)``, memory: ``(B, S, D)`` (default: ``query``),
            allowed: ``(T, S)``, ``(B, T, S)`` or ``(B, H, T, S)``
            -> output ``(B, T, D)``, weights ``(B, H, T, S)``
        """
        w_q, w_kv = self.in_proj.weight.split([self.d_model, 2 * self.d_model])
        b_q, b_kv = (None, None) if self.in_proj.bias is None else self.in_proj.bias.split([self.d_model, 2 * self.d_model])
        if memory is None and cache is None:  # self-attention: one (D -> 3D) matmul gives q, k and v
            q, k, v = self.in_proj(query).chunk(3, dim=-1)  # (B, T, D) @ (D, 3D) -> 3 x (B, T, D)
        elif memory is None:  # self-attention, one step at a time: extend the cached keys and values
            q, k, v = self.in_proj(query).chunk(3, dim=-1)
            if "k" in cache:
                k, v = torch.cat([cache["k"], k], dim=1), torch.cat([cache["v"], v], dim=1)  # (B, S+T, D)
            cache["k"], cache["v"] = k, v
        else:  # cross-attention: queries from `query`, keys and values from `memory`
            q = F.linear(query, w_q, b_q)  # (B, T, D) @ (D, D) -> (B, T, D)
            if cache is not None and "k" in cache:
                k, v = cache["k"], cache["v"]
            else:
                k, v = F.linear(memory, w_kv, b_kv).chunk(2, dim=-1)  # (B, S, D) @ (D, 2D) -> 2 x (B, S, D)
                if cache is not None:
                    cache["k"], cache["v"] = k, v
        q, k, v = (split_heads(x, self.num_heads) for x in (q, k, v))  # -> (B, H, T or S, Dh)
        mask = _heads_mask(allowed)
        if need_weights:
            heads, weights = scaled_dot_product_attention(q, k, v, mask)  # (B, H, T, Dh), (B, H, T, S)
        else:  # same function, PyTorch's fused kernel; empty rows zeroed as in chapter 2
            heads, weights = F.scaled_dot_product_attention(q, k, v, attn_mask=mask), None
            if mask is not None:
                heads = heads.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
        return self.out_proj(merge_heads(heads)), weights  # (B, T, D) @ (D, D) -> (B, T, D)
    # end-forward

    @torch.no_grad()
    def load_torch_weights(self, module: nn.MultiheadAttention) -> "MultiHeadAttention":
        """Copy the weights of a :class:`torch.nn.MultiheadAttention` with the same width and heads."""
        if (module.embed_dim, module.num_heads) != (self.d_model, self.num_heads):
            raise ValueError(
                f"shapes differ: torch module has embed_dim={module.embed_dim}, num_heads={module.num_heads}; "
                f"this one d_model={self.d_model}, num_heads={self.num_heads}"
            )
        if module.in_proj_weight is None:
            raise ValueError("the torch module uses separate kdim/vdim projections; only kdim = vdim = embed_dim is supported")
        self.in_proj.weight.copy_(module.in_proj_weight)
        self.out_proj.weight.copy_(module.out_proj.weight)
        if self.in_proj.bias is not None:
            self.in_proj.bias.copy_(module.in_proj_bias)
            self.out_proj.bias.copy_(module.out_proj.bias)
        return self


# start-costs
def mha_parameter_count(d_model: int, bias: bool = True) -> int:
    """Parameters of one multi-head attention layer: four ``D x D`` projections (+ biases).

    The number of heads does not appear: heads split the width, they do not add weights.
    """
    return 4 * d_model * d_model + (4 * d_model if bias else 0)


def mha_macs(n_queries: int, d_model: int, n_keys: int | None = None) -> dict[str, int]:
    """Multiply-accumulates of one multi-head attention layer on one sequence, by part.

    Projections: ``T·D²`` for queries and output, ``S·D²`` each for keys and values.
    Scores ``QKᵀ`` and the weighted sum ``AV``: ``T·S·D`` each, summed over all heads
    (``H`` heads of width ``D/H``). Softmax and scaling are ``O(H·T·S)`` and not counted.
    """
    t = n_queries
    s = t if n_keys is None else n_keys
    d = d_model
    parts = {
        "projections": 2 * t * d * d + 2 * s * d * d,
        "scores": t * s * d,
        "weighted_sum": t * s * d,
    }
    parts["total"] = sum(parts.values())
    return parts
# end-costs
