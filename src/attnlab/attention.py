"""Scaled dot-product attention and the masks it uses (chapter 2).

Masks are boolean tensors in which ``True`` means "this query may attend to this
key", as in :func:`torch.nn.functional.scaled_dot_product_attention`. (``nn.Transformer``
and ``nn.MultiheadAttention`` use the opposite convention for their boolean masks;
chapter 5 converts between the two.)
"""

from __future__ import annotations

import math

import torch
from torch import Tensor


def attention_scores(q: Tensor, k: Tensor, scale: float | None = None) -> Tensor:
    """Return the scaled compatibility scores ``q @ k.T * scale``.

    ``scale`` defaults to ``1 / sqrt(d_k)``; pass ``scale=1.0`` for raw dot products.

    Shape:
        q: ``(..., T, Dh)``, k: ``(..., S, Dh)`` -> ``(..., T, S)``
    """
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"queries and keys must have the same last dimension d_k, got {q.shape[-1]} "
            f"(q {tuple(q.shape)}) and {k.shape[-1]} (k {tuple(k.shape)})"
        )
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    return (q @ k.transpose(-2, -1)) * scale  # (..., T, Dh) @ (..., Dh, S) -> (..., T, S)


# start-sdpa
def scaled_dot_product_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    allowed: Tensor | None = None,
    scale: float | None = None,
) -> tuple[Tensor, Tensor]:
    """softmax(q kᵀ / √d_k) v, returning ``(output, weights)``.

    ``allowed`` is a boolean mask broadcastable to ``(..., T, S)``; ``True`` means
    "may attend". A query whose row of ``allowed`` is entirely ``False`` gets all-zero
    weights and an all-zero output (not NaN, and not a uniform average over keys it
    was told to ignore); its gradients are zero too.

    Shape:
        q: ``(..., T, Dh)``, k: ``(..., S, Dh)``, v: ``(..., S, Dv)``,
        allowed: broadcastable to ``(..., T, S)``
        -> output ``(..., T, Dv)``, weights ``(..., T, S)``
    """
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"keys and values must have the same length S, got {k.shape[-2]} and {v.shape[-2]}"
        )
    scores = attention_scores(q, k, scale)  # (..., T, S)
    if allowed is None:
        weights = torch.softmax(scores, dim=-1)
    else:
        if allowed.dtype != torch.bool:
            raise TypeError(
                f"the mask must be boolean with True = may attend, got dtype {allowed.dtype}; "
                "convert an additive float mask with `mask == 0`"
            )
        scores = scores.masked_fill(~allowed, float("-inf"))
        # A row with no allowed key would be softmax(-inf, ..., -inf) = NaN. Give such
        # rows finite scores, then zero their weights after the softmax.
        any_allowed = allowed.any(dim=-1, keepdim=True)  # (..., T, 1)
        scores = scores.masked_fill(~any_allowed, 0.0)
        weights = torch.softmax(scores, dim=-1).masked_fill(~any_allowed, 0.0)
    output = weights @ v  # (..., T, S) @ (..., S, Dv) -> (..., T, Dv)
    return output, weights
# end-sdpa


# start-masks
def causal_mask(t: int, s: int | None = None, *, device: torch.device | str | None = None) -> Tensor:
    """Boolean mask in which query ``i`` may attend to keys ``0..i`` (``True`` on and below the diagonal).

    With ``s > t`` the mask is aligned top-left, as ``is_causal=True`` in
    :func:`torch.nn.functional.scaled_dot_product_attention` is.

    Shape:
        -> ``(T, S)`` with ``S = t`` by default
    """
    s = t if s is None else s
    if t < 0 or s < 0:
        raise ValueError(f"lengths must be non-negative, got t={t}, s={s}")
    return torch.ones(t, s, dtype=torch.bool, device=device).tril()


def padding_mask(lengths: Tensor, s: int | None = None) -> Tensor:
    """Boolean key mask that is ``True`` at the real (non-padding) positions of each sequence.

    ``lengths[b]`` is the number of real tokens of sequence ``b``; positions
    ``lengths[b]..s-1`` are padding. ``s`` defaults to ``lengths.max()``.

    Shape:
        lengths: ``(B,)`` -> ``(B, S)``
    """
    lengths = torch.as_tensor(lengths)
    if lengths.dim() != 1 or lengths.dtype.is_floating_point or lengths.dtype == torch.bool:
        raise ValueError(
            f"lengths must be a 1-D integer tensor of shape (B,), got dtype {lengths.dtype} "
            f"and shape {tuple(lengths.shape)}"
        )
    if lengths.numel() and int(lengths.min()) < 0:
        raise ValueError(f"lengths must be non-negative, got {lengths.tolist()}")
    longest = int(lengths.max()) if lengths.numel() else 0
    s = longest if s is None else s
    if longest > s:
        raise ValueError(f"a length ({longest}) exceeds the padded length s={s}")
    positions = torch.arange(s, device=lengths.device)  # (S,)
    return positions[None, :] < lengths[:, None]  # (1, S) < (B, 1) -> (B, S)


def combine_masks(key_padding: Tensor | None = None, causal: Tensor | None = None) -> Tensor:
    """AND a key-padding mask with a causal (or any ``(T, S)``) mask.

    Shape:
        key_padding: ``(B, S)``, causal: ``(T, S)`` -> ``(B, T, S)``
        (only one given: ``(B, 1, S)`` or ``(T, S)``)
    """
    if key_padding is None and causal is None:
        raise ValueError("combine_masks needs at least one mask")
    if key_padding is None:
        return causal
    if key_padding.dim() != 2:
        raise ValueError(f"key_padding must have shape (B, S), got {tuple(key_padding.shape)}")
    padding = key_padding[:, None, :]  # (B, S) -> (B, 1, S)
    if causal is None:
        return padding
    if causal.shape[-1] != key_padding.shape[-1]:
        raise ValueError(
            f"masks disagree on the key length S: key_padding {tuple(key_padding.shape)}, "
            f"causal {tuple(causal.shape)}"
        )
    return padding & causal  # (B, 1, S) & (T, S) -> (B, T, S)
# end-masks
