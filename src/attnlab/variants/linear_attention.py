"""Linear-cost approximations and replacements of softmax attention (chapter 6): Linformer,
Performer (FAVOR+) and the linear transformer of Katharopoulos et al. (elu + 1 features)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor

from attnlab.attention import causal_mask


# start-linear
def elu_feature_map(x: Tensor) -> Tensor:
    """φ(x) = elu(x) + 1, positive everywhere, so φ(q)·φ(k) can stand in for exp(q·k)."""
    return F.elu(x) + 1


def linear_attention(q: Tensor, k: Tensor, v: Tensor, eps: float = 1e-6) -> Tensor:
    """Non-causal linear attention: ``φ(Q) (φ(K)ᵀ V) / (φ(Q) φ(K)ᵀ 1)``, cost ``O(T·Dh²)``.

    Shape:
        q: ``(..., T, Dh)``, k: ``(..., S, Dh)``, v: ``(..., S, Dv)`` -> ``(..., T, Dv)``
    """
    fq, fk = elu_feature_map(q), elu_feature_map(k)
    kv = fk.transpose(-2, -1) @ v  # (..., Dh, S) @ (..., S, Dv) -> (..., Dh, Dv), independent of T
    norm = fq @ fk.sum(dim=-2)[..., None]  # (..., T, Dh) @ (..., Dh, 1) -> (..., T, 1)
    return (fq @ kv) / (norm + eps)  # (..., T, Dh) @ (..., Dh, Dv) -> (..., T, Dv)


def causal_linear_attention(q: Tensor, k: Tensor, v: Tensor, eps: float = 1e-6) -> Tensor:
    """Causal linear attention in prefix-sum form: ``S_i = Σ_{j≤i} φ(k_j) v_jᵀ``, ``z_i = Σ_{j≤i} φ(k_j)``,
    ``out_i = φ(q_i)ᵀ S_i / φ(q_i)ᵀ z_i``. As an RNN, the state ``S_i`` has a fixed size.

    Shape:
        q, k: ``(..., T, Dh)``, v: ``(..., T, Dv)`` -> ``(..., T, Dv)``
    """
    fq, fk = elu_feature_map(q), elu_feature_map(k)
    state = torch.cumsum(fk[..., :, None] * v[..., None, :], dim=-3)  # (..., T, Dh, Dv) running Σ φ(k) vᵀ
    z = torch.cumsum(fk, dim=-2)  # (..., T, Dh) running Σ φ(k)
    num = (fq[..., None, :] @ state).squeeze(-2)  # (..., T, 1, Dh) @ (..., T, Dh, Dv) -> (..., T, Dv)
    den = (fq * z).sum(-1, keepdim=True)  # (..., T, 1)
    return num / (den + eps)


def causal_linear_attention_quadratic(q: Tensor, k: Tensor, v: Tensor, eps: float = 1e-6) -> Tensor:
    """The same causal linear attention written as a masked ``T × T`` matrix, ``O(T²)``: the reference
    the prefix-sum form must equal."""
    scores = elu_feature_map(q) @ elu_feature_map(k).transpose(-2, -1)  # (..., T, Dh) @ (..., Dh, T) -> (..., T, T)
    scores = scores * causal_mask(q.shape[-2], k.shape[-2], device=q.device)
    return (scores @ v) / (scores.sum(-1, keepdim=True) + eps)  # (..., T, T) @ (..., T, Dv)
# end-linear


# start-performer
def orthogonal_gaussian(num_features: int, dim: int, generator: torch.Generator | None = None,
                        dtype=torch.float32) -> Tensor:
    """Random projection ``(m, Dh)`` whose rows are orthogonal in blocks of ``Dh`` and have the norms of
    Gaussian vectors (FAVOR+'s orthogonal random features reduce the estimator's variance)."""
    blocks = []
    for start in range(0, num_features, dim):
        g = torch.randn(dim, dim, generator=generator, dtype=torch.float64)
        qmat, _ = torch.linalg.qr(g)
        blocks.append(qmat.T[: min(dim, num_features - start)])
    w = torch.cat(blocks)  # (m, Dh) orthonormal rows
    norms = torch.randn(num_features, dim, generator=generator, dtype=torch.float64).norm(dim=1, keepdim=True)
    return (w * norms).to(dtype)


def favor_features(x: Tensor, w: Tensor) -> Tensor:
    """Positive random features ``φ(x) = exp(w·x − |x|²/2) / √m`` with ``E[φ(q)·φ(k)] = exp(q·k)``.

    Shape:
        x: ``(..., T, Dh)``, w: ``(m, Dh)`` -> ``(..., T, m)``
    """
    proj = x @ w.T  # (..., T, Dh) @ (Dh, m) -> (..., T, m)
    sq = (x * x).sum(-1, keepdim=True) / 2
    shift = proj.amax(dim=(-2, -1), keepdim=True).detach()  # a constant factor that cancels in the ratio
    return torch.exp(proj - sq - shift) / math.sqrt(w.shape[0])


def performer_attention(q: Tensor, k: Tensor, v: Tensor, w: Tensor) -> Tensor:
    """FAVOR+ estimate of softmax attention (non-causal) in ``O(T·m·Dh)``.

    Shape:
        q: ``(..., T, Dh)``, k: ``(..., S, Dh)``, v: ``(..., S, Dv)``, w: ``(m, Dh)`` -> ``(..., T, Dv)``
    """
    scale = q.shape[-1] ** -0.25  # split 1/√Dh between queries and keys
    fq, fk = favor_features(q * scale, w), favor_features(k * scale, w)
    kv = fk.transpose(-2, -1) @ v  # (..., m, S) @ (..., S, Dv) -> (..., m, Dv)
    norm = fq @ fk.sum(dim=-2)[..., None]  # (..., T, m) @ (..., m, 1) -> (..., T, 1)
    return (fq @ kv) / norm
# end-performer


# start-linformer
def linformer_attention(q: Tensor, k: Tensor, v: Tensor, e: Tensor, f: Tensor) -> Tensor:
    """Linformer: project the ``S`` keys and values down to ``r`` rows with ``E, F (r, S)``, then
    ordinary softmax attention over ``r`` summaries, cost ``O(T·r)``.

    Shape:
        q: ``(..., T, Dh)``, k, v: ``(..., S, Dh)``, e, f: ``(r, S)`` -> ``(..., T, Dh)``
    """
    k_low = e @ k  # (r, S) @ (..., S, Dh) -> (..., r, Dh)
    v_low = f @ v
    scores = q @ k_low.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T, Dh) @ (..., Dh, r) -> (..., T, r)
    return torch.softmax(scores, dim=-1) @ v_low  # (..., T, r) @ (..., r, Dh) -> (..., T, Dh)
# end-linformer
