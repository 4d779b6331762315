"""Plotting helpers shared by the chapters (matplotlib)."""

from __future__ import annotations

from typing import Sequence

import torch


def plot_attention(
    weights,
    queries: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
    ax=None,
    title: str | None = None,
    cmap: str = "viridis",
    annotate: bool | None = None,
):
    """Draw one attention matrix as a heatmap: queries down the side, keys along the top.

    ``weights`` is a ``(T, S)`` tensor or array (weights or a boolean mask). Returns the axes.
    Values are written in the cells when the matrix is small (``annotate=None`` decides).

    Shape:
        weights: ``(T, S)``
    """
    import matplotlib.pyplot as plt

    w = torch.as_tensor(weights).detach().to("cpu")
    if w.dim() != 2:
        raise ValueError(f"plot_attention draws one (T, S) matrix, got shape {tuple(w.shape)}; index a batch/head first")
    w = w.float()
    t, s = w.shape
    if queries is not None and len(queries) != t:
        raise ValueError(f"{len(queries)} query labels for {t} rows")
    if keys is not None and len(keys) != s:
        raise ValueError(f"{len(keys)} key labels for {s} columns")
    if ax is None:
        _, ax = plt.subplots(figsize=(0.5 + 0.45 * max(s, 4), 0.5 + 0.45 * max(t, 4)))
    image = ax.imshow(w.numpy(), cmap=cmap, vmin=0.0, vmax=max(1.0, float(w.max())), aspect="equal")
    if keys is not None:
        ax.set_xticks(range(s), labels=keys, rotation=90)
    else:  # numbered axes: at most about ten ticks, so the numbers never overlap
        ax.set_xticks(range(0, s, max(1, -(-s // 10))))
    if queries is not None:
        ax.set_yticks(range(t), labels=queries)
    else:
        ax.set_yticks(range(0, t, max(1, -(-t // 10))))
    ax.set_xlabel("key")
    ax.set_ylabel("query")
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    if title:
        ax.set_title(title, pad=24)
    if annotate is None:
        annotate = t * s <= 64
    if annotate:
        for i in range(t):
            for j in range(s):
                value = float(w[i, j])
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                        color="black" if value > 0.6 else "white")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return ax
