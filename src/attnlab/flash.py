"""FlashAttention in PyTorch (chapter 7): exact attention without the ``n x n`` score matrix.

The forward pass walks over tiles of queries and keys and keeps, for every query, a running
maximum ``m``, a running softmax denominator ``l`` and a running (unnormalised) output. When a new
tile of keys raises the maximum, the old sums are rescaled by ``exp(m_old - m_new)``: this is the
*online softmax*. Only ``O(n)`` numbers per head live beyond one tile, so the extra memory grows
linearly in the length. The backward pass recomputes each tile's probabilities from the saved
log-sum-exp instead of storing them (:class:`FlashAttentionFunction`).

The Triton version of the same forward pass is in :mod:`attnlab.flash_triton`.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor


def _check(q: Tensor, k: Tensor, v: Tensor, block_q: int, block_k: int) -> None:
    if q.dim() < 2 or q.dim() != k.dim() or k.dim() != v.dim():
        raise ValueError(
            f"q, k, v must have the same number (>= 2) of dimensions, got {tuple(q.shape)}, "
            f"{tuple(k.shape)}, {tuple(v.shape)}"
        )
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"queries and keys need the same width Dh, got {q.shape[-1]} and {k.shape[-1]}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"keys and values need the same length S, got {k.shape[-2]} and {v.shape[-2]}")
    if q.shape[:-2] != k.shape[:-2] or k.shape[:-2] != v.shape[:-2]:
        raise ValueError(f"q, k, v need the same leading (batch, head) dims, got {tuple(q.shape)}, "
                         f"{tuple(k.shape)}, {tuple(v.shape)}")
    if k.shape[-2] == 0:
        raise ValueError("attention needs at least one key (S >= 1)")
    if block_q < 1 or block_k < 1:
        raise ValueError(f"block sizes must be positive, got block_q={block_q}, block_k={block_k}")


def naive_attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = False, scale: float | None = None) -> Tensor:
    """softmax(q kᵀ · scale) v with the whole ``(T, S)`` score matrix in memory (the baseline).

    ``causal=True`` lets query ``i`` see keys ``0..i`` (top-left aligned, as ``is_causal=True``
    in :func:`torch.nn.functional.scaled_dot_product_attention`).

    Shape:
        q: ``(..., T, Dh)``, k: ``(..., S, Dh)``, v: ``(..., S, Dv)`` -> ``(..., T, Dv)``
    """
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = (q @ k.transpose(-2, -1)) * scale  # (..., T, Dh) @ (..., Dh, S) -> (..., T, S)
    if causal:
        t, s = scores.shape[-2:]
        allowed = torch.ones(t, s, dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v  # (..., T, S) @ (..., S, Dv) -> (..., T, Dv)


# start-forward
def flash_attention_forward(
    q: Tensor, k: Tensor, v: Tensor, causal: bool = False, scale: float | None = None,
    block_q: int = 128, block_k: int = 128,
) -> tuple[Tensor, Tensor]:
    """Tiled attention with the online softmax; returns ``(output, logsumexp)``.

    ``logsumexp[..., i]`` is ``log Σ_j exp(score_ij)`` over the keys query ``i`` may see; the
    backward pass rebuilds the probabilities from it. Lengths need not be multiples of the blocks.

    Shape:
        q: ``(..., T, Dh)``, k: ``(..., S, Dh)``, v: ``(..., S, Dv)``
        -> output ``(..., T, Dv)``, logsumexp ``(..., T)`` (float32 or float64)
    """
    _check(q, k, v, block_q, block_k)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    t, s = q.shape[-2], k.shape[-2]
    acc_dtype = torch.float64 if q.dtype == torch.float64 else torch.float32
    out = torch.empty(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
    lse = torch.empty(q.shape[:-1], dtype=acc_dtype, device=q.device)
    for i0 in range(0, t, block_q):
        i1 = min(i0 + block_q, t)
        qi = q[..., i0:i1, :].to(acc_dtype) * scale                      # (..., bq, Dh)
        m = torch.full(qi.shape[:-1], float("-inf"), dtype=acc_dtype, device=q.device)  # running max
        l = torch.zeros_like(m)                                           # running denominator
        acc = torch.zeros(*qi.shape[:-1], v.shape[-1], dtype=acc_dtype, device=q.device)
        last_key = min(s, i1) if causal else s  # causal: tiles right of the diagonal are skipped
        for j0 in range(0, last_key, block_k):
            j1 = min(j0 + block_k, last_key)
            scores = qi @ k[..., j0:j1, :].to(acc_dtype).transpose(-2, -1)  # (..., bq, Dh) @ (..., Dh, bk) -> (..., bq, bk)
            if causal and j1 > i0:
                rows = torch.arange(i0, i1, device=q.device)[:, None]
                cols = torch.arange(j0, j1, device=q.device)[None, :]
                scores = scores.masked_fill(cols > rows, float("-inf"))
            m_new = torch.maximum(m, scores.amax(dim=-1))
            m_safe = m_new.masked_fill(m_new == float("-inf"), 0.0)  # a row with no key seen yet
            p = torch.exp(scores - m_safe[..., None])                    # (..., bq, bk)
            rescale = torch.exp(m - m_safe)                               # shrinks the old sums
            l = l * rescale + p.sum(dim=-1)
            acc = acc * rescale[..., None] + p @ v[..., j0:j1, :].to(acc_dtype)  # (..., bq, bk) @ (..., bk, Dv)
            m = m_new
        out[..., i0:i1, :] = (acc / l[..., None]).to(q.dtype)
        lse[..., i0:i1] = m + torch.log(l)
    return out, lse
# end-forward


# start-backward
def flash_attention_backward(
    q: Tensor, k: Tensor, v: Tensor, out: Tensor, lse: Tensor, grad_out: Tensor,
    causal: bool = False, scale: float | None = None, block_q: int = 128, block_k: int = 128,
) -> tuple[Tensor, Tensor, Tensor]:
    """Gradients ``(dq, dk, dv)`` by recomputing each tile's probabilities from ``lse``.

    With ``P = softmax(S)`` and ``O = P V``: ``dV = Pᵀ dO``, ``dP = dO Vᵀ``,
    ``dS = P ∘ (dP - rowsum(dO ∘ O))``, ``dQ = dS K · scale``, ``dK = dSᵀ Q · scale``.

    Shape:
        as :func:`flash_attention_forward`; ``grad_out`` like ``out``
    """
    _check(q, k, v, block_q, block_k)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    t, s = q.shape[-2], k.shape[-2]
    acc = lse.dtype
    dq = torch.zeros(q.shape, dtype=acc, device=q.device)
    dk = torch.zeros(k.shape, dtype=acc, device=q.device)
    dv = torch.zeros(v.shape, dtype=acc, device=q.device)
    delta = (grad_out.to(acc) * out.to(acc)).sum(dim=-1)  # (..., T): rowsum(dO ∘ O)
    for j0 in range(0, s, block_k):
        j1 = min(j0 + block_k, s)
        kj, vj = k[..., j0:j1, :].to(acc), v[..., j0:j1, :].to(acc)
        first_query = j0 if causal else 0  # causal: queries above this tile never see it
        for i0 in range(first_query - first_query % block_q, t, block_q):
            i1 = min(i0 + block_q, t)
            qi, doi = q[..., i0:i1, :].to(acc), grad_out[..., i0:i1, :].to(acc)
            scores = (qi @ kj.transpose(-2, -1)) * scale  # (..., bq, Dh) @ (..., Dh, bk) -> (..., bq, bk)
            p = torch.exp(scores - lse[..., i0:i1, None])
            if causal:
                rows = torch.arange(i0, i1, device=q.device)[:, None]
                cols = torch.arange(j0, j1, device=q.device)[None, :]
                p = p.masked_fill(cols > rows, 0.0)
            dv[..., j0:j1, :] += p.transpose(-2, -1) @ doi  # (..., bk, bq) @ (..., bq, Dv)
            dp = doi @ vj.transpose(-2, -1)                   # (..., bq, Dv) @ (..., Dv, bk) -> (..., bq, bk)
            ds = p * (dp - delta[..., i0:i1, None])
            dq[..., i0:i1, :] += (ds @ kj) * scale            # (..., bq, bk) @ (..., bk, Dh)
            dk[..., j0:j1, :] += (ds.transpose(-2, -1) @ qi) * scale  # (..., bk, bq) @ (..., bq, Dh)
    return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype)
# end-backward


# start-function
class FlashAttentionFunction(torch.autograd.Function):
    """Autograd wrapper: saves ``q, k, v, out, lse`` (all ``O(n)``), never the probabilities."""

    @staticmethod
    def forward(ctx, q, k, v, causal=False, scale=None, block_q=128, block_k=128):
        out, lse = flash_attention_forward(q, k, v, causal, scale, block_q, block_k)
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.settings = (causal, scale, block_q, block_k)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        q, k, v, out, lse = ctx.saved_tensors
        dq, dk, dv = flash_attention_backward(q, k, v, out, lse, grad_out, *ctx.settings)
        return dq, dk, dv, None, None, None, None
# end-function


def flash_attention(
    q: Tensor, k: Tensor, v: Tensor, causal: bool = False, scale: float | None = None,
    block_q: int = 128, block_k: int = 128,
) -> Tensor:
    """Exact attention, tiled: forward and backward never hold a ``(T, S)`` matrix.

    Shape:
        q: ``(..., T, Dh)``, k: ``(..., S, Dh)``, v: ``(..., S, Dv)`` -> ``(..., T, Dv)``
    """
    return FlashAttentionFunction.apply(q, k, v, causal, scale, block_q, block_k)


def score_matrix_bytes(t: int, s: int, heads: int = 1, batch: int = 1, bytes_per_value: int = 4) -> int:
    """Bytes of one ``(B, H, T, S)`` score matrix: what naive attention must hold per layer."""
    if min(t, s, heads, batch, bytes_per_value) < 0:
        raise ValueError("sizes must be non-negative")
    return batch * heads * t * s * bytes_per_value
