"""The key/value cache of autoregressive decoding and a paged allocator for it (chapter 7).

When a decoder generates token ``t`` it needs the keys and values of tokens ``0..t-1`` in every
layer. Keeping them (the KV cache) turns each step's attention into one query against ``t`` cached
rows instead of recomputing all ``t`` projections. Its size is
``2 (K and V) × layers × kv_heads × head_dim × length × batch × bytes``.
:class:`PagedKVAllocator` is a toy of vLLM's PagedAttention: memory comes in fixed blocks of
tokens, a per-request block table maps positions to blocks, and the waste is at most one
partly filled block per request instead of the unused tail of a maximum-length reservation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor


@dataclass(frozen=True)
class ModelShape:
    """The attention shape of a decoder, as published (see the chapter's references)."""

    name: str
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    context: int  # the context length the model was trained for
    source: str
    window: int | None = None  # sliding-window attention: the cache is a rolling buffer of this many tokens

    def cached_tokens(self, length: int) -> int:
        """How many tokens' keys and values the model keeps after ``length`` tokens."""
        if length > self.context:
            raise ValueError(f"{self.name} was trained for {self.context} tokens, not {length}")
        return length if self.window is None else min(length, self.window)


# Shapes from the papers' architecture tables and the released model configs.
MODEL_SHAPES = [
    ModelShape("GPT-3 175B", 96, 96, 96, 128, 2048, "brown2020gpt3"),
    ModelShape("Llama 2 7B", 32, 32, 32, 128, 4096, "touvron2023llama2"),
    ModelShape("Llama 2 70B (GQA)", 80, 64, 8, 128, 4096, "touvron2023llama2"),
    ModelShape("Mistral 7B (GQA)", 32, 32, 8, 128, 8192, "jiang2023mistral", window=4096),
]


# start-kv-bytes
def kv_cache_bytes(layers: int, kv_heads: int, head_dim: int, length: int, batch: int = 1,
                   bytes_per_value: float = 2) -> float:
    """Bytes of the keys and values of ``length`` tokens for ``batch`` sequences."""
    if min(layers, kv_heads, head_dim, length, batch) < 0 or bytes_per_value <= 0:
        raise ValueError("sizes must be non-negative and bytes_per_value positive")
    return 2 * layers * kv_heads * head_dim * length * batch * bytes_per_value
# end-kv-bytes


class KVCache:
    """Keys and values of the tokens decoded so far, for one attention layer.

    Shape:
        append: k, v ``(B, H, t, Dh)``; keys/values: ``(B, H, length, Dh)``
    """

    def __init__(self) -> None:
        self.keys: Tensor | None = None
        self.values: Tensor | None = None

    def __len__(self) -> int:
        return 0 if self.keys is None else self.keys.shape[-2]

    def append(self, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
        """Add the new tokens' keys and values; return all cached ones."""
        if k.shape != v.shape:
            raise ValueError(f"k and v must have the same shape, got {tuple(k.shape)} and {tuple(v.shape)}")
        if self.keys is None:
            self.keys, self.values = k, v
        else:
            self.keys = torch.cat([self.keys, k], dim=-2)    # (B, H, t, Dh) + (B, H, new, Dh)
            self.values = torch.cat([self.values, v], dim=-2)
        return self.keys, self.values


# start-paged
class PagedKVAllocator:
    """Hands out KV memory in blocks of ``block_size`` tokens from a pool of ``num_blocks``.

    Each request has a block table: position ``p`` lives in block ``table[p // block_size]`` at
    slot ``p % block_size``. A request takes a new block only when its last one is full.
    """

    def __init__(self, num_blocks: int, block_size: int) -> None:
        if num_blocks < 1 or block_size < 1:
            raise ValueError(f"need num_blocks >= 1 and block_size >= 1, got {num_blocks}, {block_size}")
        self.block_size = block_size
        self.free = list(range(num_blocks - 1, -1, -1))  # a stack of free block ids
        self.tables: dict[object, list[int]] = {}
        self.lengths: dict[object, int] = {}

    def append_token(self, request) -> tuple[int, int]:
        """Reserve room for one more token of ``request``; return its ``(block, slot)``."""
        table = self.tables.setdefault(request, [])
        length = self.lengths.get(request, 0)
        if length == len(table) * self.block_size:
            if not self.free:
                raise MemoryError("out of KV blocks")
            table.append(self.free.pop())
        self.lengths[request] = length + 1
        return table[length // self.block_size], length % self.block_size

    def release(self, request) -> None:
        """Give all of a finished request's blocks back to the pool."""
        self.free.extend(reversed(self.tables.pop(request)))
        del self.lengths[request]

    def slot_of(self, request, position: int) -> tuple[int, int]:
        """Where token ``position`` of ``request`` is stored."""
        if not 0 <= position < self.lengths.get(request, 0):
            raise IndexError(f"request {request!r} has no token {position}")
        return self.tables[request][position // self.block_size], position % self.block_size

    def reserved_tokens(self) -> int:
        """Token slots held by live requests (used or not)."""
        return sum(len(t) for t in self.tables.values()) * self.block_size

    def used_tokens(self) -> int:
        return sum(self.lengths.values())
# end-paged


def waste_fraction(lengths: list[int], max_length: int, block_size: int | None = None) -> float:
    """Fraction of reserved KV slots that hold no token, for requests of the given final lengths.

    ``block_size=None``: contiguous allocation, each request reserves ``max_length`` slots up front.
    Otherwise paged allocation: ``ceil(length / block_size)`` blocks per request.
    """
    if not lengths or any(n < 1 or n > max_length for n in lengths):
        raise ValueError(f"need lengths in 1..{max_length}")
    used = sum(lengths)
    if block_size is None:
        reserved = max_length * len(lengths)
    else:
        reserved = sum(math.ceil(n / block_size) * block_size for n in lengths)
    return 1.0 - used / reserved
