"""Multi-query and grouped-query attention (chapter 6).

``H`` query heads share ``G`` key/value heads (``H % G == 0``): ``G = H`` is ordinary multi-head
attention, ``G = 1`` is multi-query attention (MQA), anything between is grouped-query attention
(GQA). Query head ``h`` reads key/value head ``h // (H / G)``.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attnlab.attention import scaled_dot_product_attention
from attnlab.multihead import MultiHeadAttention, merge_heads, split_heads


# start-gqa
def repeat_kv(x: Tensor, num_heads: int) -> Tensor:
    """Give each of ``H`` query heads its group's key/value head.

    Shape:
        x: ``(B, G, S, Dh)`` -> ``(B, H, S, Dh)``; head ``h`` is ``x[:, h // (H // G)]``
    """
    g = x.shape[1]
    if num_heads % g:
        raise ValueError(f"num_heads={num_heads} is not a multiple of the {g} key/value heads")
    return x.repeat_interleave(num_heads // g, dim=1)  # (B, G, S, Dh) -> (B, H, S, Dh)


class GroupedQueryAttention(nn.Module):
    """Self-attention with ``num_heads`` query heads and ``num_kv_heads`` shared key/value heads.

    ``cache`` (a dict, empty at the first step) keeps the ``G`` key/value heads of earlier calls,
    so the cache holds ``2·G·Dh`` numbers per position instead of ``2·H·Dh``.

    Shape:
        x: ``(B, T, D)``, allowed: ``(T, S)`` or ``(B, 1, T, S)`` -> ``(B, T, D)``
    """

    def __init__(self, d_model: int, num_heads: int, num_kv_heads: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        if num_kv_heads < 1 or num_heads % num_kv_heads:
            raise ValueError(f"num_heads={num_heads} must be a positive multiple of num_kv_heads={num_kv_heads}")
        factory = {"device": device, "dtype": dtype}
        self.num_heads, self.num_kv_heads, self.head_dim = num_heads, num_kv_heads, d_model // num_heads
        kv_width = num_kv_heads * self.head_dim
        self.q_proj = nn.Linear(d_model, d_model, bias=bias, **factory)
        self.k_proj = nn.Linear(d_model, kv_width, bias=bias, **factory)
        self.v_proj = nn.Linear(d_model, kv_width, bias=bias, **factory)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias, **factory)

    def forward(self, x: Tensor, allowed: Tensor | None = None, cache: dict | None = None) -> Tensor:
        q = split_heads(self.q_proj(x), self.num_heads)  # (B, T, D) -> (B, H, T, Dh)
        k = split_heads(self.k_proj(x), self.num_kv_heads)  # (B, T, G·Dh) -> (B, G, T, Dh)
        v = split_heads(self.v_proj(x), self.num_kv_heads)
        if cache is not None:
            if "k" in cache:
                k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)  # (B, G, S, Dh)
            cache["k"], cache["v"] = k, v
        k, v = repeat_kv(k, self.num_heads), repeat_kv(v, self.num_heads)  # (B, G, S, Dh) -> (B, H, S, Dh)
        heads, _ = scaled_dot_product_attention(q, k, v, allowed)  # (B, H, T, Dh)
        return self.out_proj(merge_heads(heads))  # (B, T, D) @ (D, D) -> (B, T, D)
# end-gqa

    @classmethod
    @torch.no_grad()
    def from_mha(cls, mha: MultiHeadAttention, num_kv_heads: int) -> "GroupedQueryAttention":
        """Convert trained multi-head attention: each group's key/value head is the mean of its heads.

        This is the conversion of Ainslie et al. (2023), before their short "uptraining". With
        ``num_kv_heads == mha.num_heads`` nothing is averaged and the outputs are identical.
        """
        d, h = mha.d_model, mha.num_heads
        p = next(mha.parameters())
        new = cls(d, h, num_kv_heads, bias=mha.in_proj.bias is not None, device=p.device, dtype=p.dtype)
        w_q, w_k, w_v = mha.in_proj.weight.split(d)

        def pool(w: Tensor) -> Tensor:  # (H·Dh, ...) -> (G·Dh, ...), averaging the heads of a group
            return w.reshape(num_kv_heads, h // num_kv_heads, mha.head_dim, *w.shape[1:]).mean(1).flatten(0, 1)

        new.q_proj.weight.copy_(w_q)
        new.k_proj.weight.copy_(pool(w_k))
        new.v_proj.weight.copy_(pool(w_v))
        new.out_proj.weight.copy_(mha.out_proj.weight)
        if mha.in_proj.bias is not None:
            b_q, b_k, b_v = mha.in_proj.bias.split(d)
            new.q_proj.bias.copy_(b_q)
            new.k_proj.bias.copy_(pool(b_k))
            new.v_proj.bias.copy_(pool(b_v))
            new.out_proj.bias.copy_(mha.out_proj.bias)
        return new


# start-kv-bytes
def kv_cache_bytes(num_layers: int, num_kv_heads: int, head_dim: int, seq_len: int, batch: int = 1,
                   bytes_per_number: int = 2) -> int:
    """Bytes of a decoder's key/value cache: keys and values, every layer, every cached position."""
    return 2 * num_layers * num_kv_heads * head_dim * seq_len * batch * bytes_per_number


def attention_parameter_count(d_model: int, num_heads: int, num_kv_heads: int, bias: bool = True) -> int:
    """Parameters of one GQA layer: ``D×D`` for queries and output, ``D×G·Dh`` for keys and values."""
    kv = num_kv_heads * d_model // num_heads
    return 2 * d_model * d_model + 2 * d_model * kv + ((2 * d_model + 2 * kv) if bias else 0)
# end-kv-bytes


def tensor_bytes(cache: dict) -> int:
    """Bytes actually held by the tensors of a cache dict (nested dicts and lists allowed)."""
    if isinstance(cache, Tensor):
        return cache.numel() * cache.element_size()
    if isinstance(cache, dict):
        return sum(tensor_bytes(v) for v in cache.values())
    if isinstance(cache, (list, tuple)):
        return sum(tensor_bytes(v) for v in cache)
    return 0


__all__ = ["GroupedQueryAttention", "attention_parameter_count", "kv_cache_bytes", "repeat_kv", "tensor_bytes"]
