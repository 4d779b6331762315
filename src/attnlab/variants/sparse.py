"""Sparse attention patterns (chapter 6): which (query, key) pairs are scored at all.

Every pattern is a boolean ``(T, S)`` mask, ``True`` = may attend, so it can be drawn and fed to
:func:`attnlab.scaled_dot_product_attention`. Masking a dense score matrix saves nothing: the
savings come only from an implementation that never computes the masked scores, such as
:func:`sliding_window_attention` (a gather of each query's window) or :func:`block_topk_attention`.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor

from attnlab.attention import causal_mask, scaled_dot_product_attention


def _positions(t: int, device=None) -> tuple[Tensor, Tensor]:
    if t < 1:
        raise ValueError(f"sequence length must be positive, got {t}")
    i = torch.arange(t, device=device)
    return i[:, None], i[None, :]  # (T, 1), (1, T)


# start-patterns
def sliding_window_mask(t: int, window: int, causal: bool = False, *, device=None) -> Tensor:
    """Query ``i`` sees keys ``j`` with ``|i - j| <= window`` (only ``j <= i`` if ``causal``).

    Shape:
        -> ``(T, T)``
    """
    if window < 0:
        raise ValueError(f"window must be >= 0, got {window}")
    i, j = _positions(t, device)
    allowed = (i - j).abs() <= window
    return allowed & (j <= i) if causal else allowed


def dilated_mask(t: int, window: int, dilation: int, *, device=None) -> Tensor:
    """A sliding window with gaps: keys ``i ± d·m`` for ``m = 0..window`` (Longformer's dilation).

    Shape:
        -> ``(T, T)``
    """
    if dilation < 1:
        raise ValueError(f"dilation must be >= 1, got {dilation}")
    i, j = _positions(t, device)
    gap = (i - j).abs()
    return (gap % dilation == 0) & (gap <= window * dilation)


def block_sparse_mask(t: int, block: int, *, device=None) -> Tensor:
    """Queries attend to every key of their own block of ``block`` positions.

    Shape:
        -> ``(T, T)``
    """
    if block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    i, j = _positions(t, device)
    return i // block == j // block


def bigbird_mask(t: int, window: int, num_global: int, num_random: int, generator: torch.Generator | None = None) -> Tensor:
    """BigBird: a sliding window, ``num_global`` tokens that see and are seen by all, and
    ``num_random`` random keys per query.

    Shape:
        -> ``(T, T)``
    """
    allowed = sliding_window_mask(t, window)
    allowed[:num_global, :] = True
    allowed[:, :num_global] = True
    if num_random:
        picks = torch.rand(t, t, generator=generator).argsort(dim=-1)[:, :num_random]  # (T, R) random keys
        allowed.scatter_(1, picks, True)
    return allowed


def lsh_buckets(x: Tensor, num_buckets: int, generator: torch.Generator | None = None) -> Tensor:
    """Reformer's angular LSH: project on random directions, bucket = argmax over ``[xR, -xR]``.

    Vectors pointing the same way land in the same bucket with high probability.

    Shape:
        x: ``(..., T, Dh)`` -> ``(..., T)`` bucket ids in ``0..num_buckets-1``
    """
    if num_buckets < 2 or num_buckets % 2:
        raise ValueError(f"num_buckets must be even and >= 2, got {num_buckets}")
    r = torch.randn(x.shape[-1], num_buckets // 2, generator=generator, dtype=x.dtype).to(x.device)
    rotated = x @ r  # (..., T, Dh) @ (Dh, nb/2) -> (..., T, nb/2)
    return torch.cat([rotated, -rotated], dim=-1).argmax(dim=-1)


def lsh_mask(buckets: Tensor) -> Tensor:
    """Attend only within a bucket. Shape: buckets ``(..., T)`` -> ``(..., T, T)``."""
    return buckets[..., :, None] == buckets[..., None, :]
# end-patterns


def scored_pairs(allowed: Tensor) -> int:
    """Number of (query, key) scores a sparse implementation has to compute."""
    return int(allowed.sum())


# start-window-attention
def sliding_window_attention(q: Tensor, k: Tensor, v: Tensor, window: int) -> Tensor:
    """Attention of each query to its ``2·window + 1`` neighbours only, without a ``T × T`` matrix.

    The keys are padded by ``window`` on both sides and each query's neighbourhood is gathered
    with ``unfold``: memory and work are ``O(T·w·Dh)``. Keys outside the sequence are masked out.
    Equals :func:`attnlab.scaled_dot_product_attention` with :func:`sliding_window_mask`.

    Shape:
        q, k, v: ``(B, H, T, Dh)`` -> ``(B, H, T, Dh)``
    """
    t, dh, width = q.shape[-2], q.shape[-1], 2 * window + 1
    k_pad = F.pad(k, (0, 0, window, window))  # (B, H, T + 2w, Dh)
    v_pad = F.pad(v, (0, 0, window, window))
    k_win = k_pad.unfold(-2, width, 1)  # (B, H, T, Dh, 2w+1): keys i-w..i+w of query i
    v_win = v_pad.unfold(-2, width, 1)
    scores = (q[..., None, :] @ k_win).squeeze(-2) / math.sqrt(dh)  # (B,H,T,1,Dh) @ (B,H,T,Dh,W) -> (B,H,T,W)
    offset = torch.arange(width, device=q.device) - window  # key position relative to the query
    pos = torch.arange(t, device=q.device)[:, None] + offset  # (T, W) absolute key positions
    inside = (pos >= 0) & (pos < t)
    weights = torch.softmax(scores.masked_fill(~inside, float("-inf")), dim=-1)
    return (v_win @ weights[..., None]).squeeze(-1)  # (B,H,T,Dh,W) @ (B,H,T,W,1) -> (B,H,T,Dh)
# end-window-attention


# start-block-topk
def block_topk_attention(q: Tensor, k: Tensor, v: Tensor, block: int, top_k: int,
                         causal: bool = True) -> tuple[Tensor, Tensor]:
    """MoBA-style attention: each query scores the mean key of every block, keeps its ``top_k``
    best blocks (its own block always), and attends only inside them.

    NSA's selection branch works the same way (compressed block keys pick the blocks); NSA adds a
    compressed branch and a sliding-window branch mixed by learned gates, not modelled here.
    Returns the output and the ``(T, S)`` mask of the pairs that were scored.

    Shape:
        q, k, v: ``(B, H, T, Dh)`` with ``T`` a multiple of ``block`` -> ``(B, H, T, Dh)``, ``(B, H, T, T)``
    """
    t = k.shape[-2]
    if t % block:
        raise ValueError(f"sequence length {t} is not a multiple of block={block}")
    n_blocks = t // block
    block_keys = k.unflatten(-2, (n_blocks, block)).mean(-2)  # (B, H, nB, Dh): one summary key per block
    gate = q @ block_keys.transpose(-2, -1)  # (B, H, T, Dh) @ (B, H, Dh, nB) -> (B, H, T, nB)
    own = torch.arange(t, device=q.device) // block  # (T,) block of each query
    blocks = torch.arange(n_blocks, device=q.device)
    if causal:
        gate = gate.masked_fill(blocks[None, :] > own[:, None], float("-inf"))  # no future blocks
    gate = gate.masked_fill(blocks[None, :] == own[:, None], float("inf"))  # own block always chosen
    chosen = gate.topk(min(top_k, n_blocks), dim=-1).indices  # (B, H, T, k)
    picked = torch.zeros_like(gate, dtype=torch.bool).scatter_(-1, chosen, True)
    picked &= gate > float("-inf")  # a future block picked only to fill k slots stays out
    allowed = picked.repeat_interleave(block, dim=-1)  # (B, H, T, nB) -> (B, H, T, T)
    if causal:
        allowed = allowed & causal_mask(t, device=q.device)
    out, _ = scaled_dot_product_attention(q, k, v, allowed)  # a real kernel gathers the chosen blocks
    return out, allowed
# end-block-topk
