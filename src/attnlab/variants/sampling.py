"""Sampling from a language model (chapter 6): temperature, top-k and top-p (nucleus) filtering."""

from __future__ import annotations

import torch
from torch import Tensor


# start-filters
def apply_temperature(logits: Tensor, temperature: float) -> Tensor:
    """Divide logits by ``temperature``: < 1 sharpens the distribution, > 1 flattens it."""
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0 (use argmax for greedy), got {temperature}")
    return logits / temperature


def top_k_filter(logits: Tensor, k: int) -> Tensor:
    """Keep the ``k`` largest logits of each row, set the rest to ``-inf``. Ties at the k-th value
    are all kept. Shape: ``(..., V)`` -> ``(..., V)``"""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    k = min(k, logits.shape[-1])
    kth = logits.topk(k, dim=-1).values[..., -1:]  # (..., 1) the k-th largest logit
    return logits.masked_fill(logits < kth, float("-inf"))


def top_p_filter(logits: Tensor, p: float) -> Tensor:
    """Nucleus filtering: keep the smallest set of most probable tokens whose probability mass is at
    least ``p``; set the rest to ``-inf``. The most probable token is always kept; among equal
    probabilities the lower token id comes first. Shape: ``(..., V)`` -> ``(..., V)``"""
    if not 0 < p <= 1:
        raise ValueError(f"p must be in (0, 1], got {p}")
    probs = torch.softmax(logits, dim=-1)
    sorted_probs, order = probs.sort(dim=-1, descending=True, stable=True)
    mass_before = sorted_probs.cumsum(dim=-1) - sorted_probs  # (..., V) mass of the tokens ranked higher
    keep_sorted = mass_before < p  # a token is needed while the mass so far is still short of p
    keep_sorted[..., 0] = True
    keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
    return logits.masked_fill(~keep, float("-inf"))
# end-filters


def sample_next(logits: Tensor, temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None,
                generator: torch.Generator | None = None) -> Tensor:
    """Sample one token id per row after temperature, top-k and top-p (applied in that order).

    Shape:
        logits: ``(B, V)`` -> ``(B,)``
    """
    logits = apply_temperature(logits, temperature)
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:
        logits = top_p_filter(logits, top_p)
    return torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator).squeeze(-1)
