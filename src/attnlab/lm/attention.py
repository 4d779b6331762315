"""Causal self-attention of a modern decoder (chapter 9): grouped-query heads (chapter 6), RoPE applied
to queries and keys inside the layer (chapter 4) and a key/value cache (chapter 7)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from attnlab.kvcache import KVCache
from attnlab.multihead import merge_heads, split_heads
from attnlab.positional import rope
from attnlab.variants.gqa import GroupedQueryAttention, repeat_kv


def causal_allowed(t: int, past: int, *, device=None) -> Tensor:
    """Query ``i`` (at position ``past + i``) may attend to keys ``0..past + i``.

    Shape:
        -> ``(T, past + T)``, ``True`` = may attend
    """
    keys = torch.arange(past + t, device=device)
    return keys[None, :] <= past + torch.arange(t, device=device)[:, None]  # (1, S) <= (T, 1) -> (T, S)


# start-attention
class CausalSelfAttention(GroupedQueryAttention):
    """Chapter 6's grouped-query attention, made causal, with RoPE inside and an optional KV cache.

    ``num_heads`` query heads share ``num_kv_heads`` key/value heads. With ``use_rope`` the queries
    and keys (not the values) are rotated by their absolute positions before the scores, so the
    scores depend on relative offsets only; the cache stores keys already rotated. A call with a
    cache of ``past`` tokens treats ``x`` as positions ``past..past+T-1``.

    Shape:
        x: ``(B, T, D)`` -> ``(B, T, D)``; the cache holds ``(B, G, past + T, Dh)`` keys and values
    """

    def __init__(self, d_model: int, num_heads: int, num_kv_heads: int | None = None, bias: bool = False,
                 use_rope: bool = True, rope_base: float = 10000.0, rope_pairing: str = "half",
                 dropout: float = 0.0, device=None, dtype=None):
        super().__init__(d_model, num_heads, num_kv_heads or num_heads, bias=bias, device=device, dtype=dtype)
        if use_rope and self.head_dim % 2:
            raise ValueError(f"RoPE needs an even head width, got d_model / num_heads = {self.head_dim}")
        self.use_rope, self.rope_base, self.rope_pairing, self.dropout = use_rope, rope_base, rope_pairing, dropout

    def forward(self, x: Tensor, cache: KVCache | None = None) -> Tensor:
        t = x.shape[1]
        past = 0 if cache is None else len(cache)
        q = split_heads(self.q_proj(x), self.num_heads)  # (B, T, D) -> (B, H, T, Dh)
        k = split_heads(self.k_proj(x), self.num_kv_heads)  # (B, T, G·Dh) -> (B, G, T, Dh)
        v = split_heads(self.v_proj(x), self.num_kv_heads)  # (B, G, T, Dh)
        if self.use_rope:
            positions = torch.arange(past, past + t, device=x.device)  # (T,)
            q = rope(q, positions, self.rope_base, self.rope_pairing)
            k = rope(k, positions, self.rope_base, self.rope_pairing)
        if cache is not None:
            k, v = cache.append(k, v)  # (B, G, past + T, Dh)
        k, v = repeat_kv(k, self.num_heads), repeat_kv(v, self.num_heads)  # (B, G, S, Dh) -> (B, H, S, Dh)
        allowed = causal_allowed(t, past, device=x.device)  # (T, S)
        heads = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed,
                                               dropout_p=self.dropout if self.training else 0.0)  # (B, H, T, Dh)
        return self.out_proj(merge_heads(heads))  # (B, T, H·Dh) @ (D, D) -> (B, T, D)
# end-attention
