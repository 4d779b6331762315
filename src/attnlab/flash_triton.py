"""The FlashAttention forward pass as a Triton kernel (chapter 7).

Triton is optional: it has Linux wheels only (``pip install "attnlab[triton]"``). Without it this
module still imports, :data:`TRITON_AVAILABLE` is ``False``, :func:`why_unavailable` says why and
:func:`flash_attention_triton` raises a clear error. On a machine without CUDA the kernel runs in
Triton's interpreter, which executes each program instance with NumPy on the CPU: set
``TRITON_INTERPRET=1`` **before** triton is first imported. This module sets it for you when it is
the first to import triton and no CUDA device is present.
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys

import torch
from torch import Tensor

if "triton" not in sys.modules and not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

TRITON_AVAILABLE = importlib.util.find_spec("triton") is not None
INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"


def why_unavailable() -> str | None:
    """``None`` when the kernel can run here, else one line saying what is missing and how to get it."""
    if not TRITON_AVAILABLE:
        return ("triton is not installed (Linux only: pip install 'attnlab[triton]'); the Triton "
                "kernel is skipped, the PyTorch FlashAttention in attnlab.flash still runs")
    if not torch.cuda.is_available() and not INTERPRETED:
        return ("no CUDA device and TRITON_INTERPRET is not '1': set it before importing triton "
                "to run the kernel in the CPU interpreter")
    return None


if TRITON_AVAILABLE:
    import triton
    import triton.language as tl

    # start-kernel
    @triton.jit
    def _flash_forward_kernel(
        Q, K, V, O, L,                     # (BH, T, Dh), (BH, S, Dh), (BH, S, Dh), (BH, T, Dh), (BH, T)
        T, S, DH, scale,
        CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
    ):
        block = tl.program_id(0)           # which tile of BLOCK_M queries
        bh = tl.program_id(1)              # which (batch, head)
        rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
        cols0 = tl.arange(0, BLOCK_N)
        dims = tl.arange(0, BLOCK_D)
        q_ptrs = Q + bh * T * DH + rows[:, None] * DH + dims[None, :]
        q = tl.load(q_ptrs, mask=(rows[:, None] < T) & (dims[None, :] < DH), other=0.0)
        m = tl.full([BLOCK_M], float("-inf"), tl.float32)     # running max per query
        l = tl.zeros([BLOCK_M], tl.float32)                   # running denominator
        acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)        # running numerator
        hi = S
        if CAUSAL:
            hi = tl.minimum(S, (block + 1) * BLOCK_M)         # skip tiles right of the diagonal
        for start in range(0, hi, BLOCK_N):
            cols = start + cols0
            kv_mask = (cols[:, None] < S) & (dims[None, :] < DH)
            k = tl.load(K + bh * S * DH + cols[:, None] * DH + dims[None, :], mask=kv_mask, other=0.0)
            # float32 blocks in full precision: a GPU's default for tl.dot is TF32 (10-bit mantissa)
            scores = tl.dot(q, tl.trans(k), input_precision="ieee") * scale  # (BLOCK_M, BLOCK_D) @ (BLOCK_D, BLOCK_N)
            ok = cols[None, :] < S
            if CAUSAL:
                ok = ok & (cols[None, :] <= rows[:, None])
            scores = tl.where(ok, scores, float("-inf"))
            m_new = tl.maximum(m, tl.max(scores, 1))
            p = tl.exp(scores - m_new[:, None])
            rescale = tl.exp(m - m_new)
            l = l * rescale + tl.sum(p, 1)
            v = tl.load(V + bh * S * DH + cols[:, None] * DH + dims[None, :], mask=kv_mask, other=0.0)
            acc = acc * rescale[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")  # (BLOCK_M, BLOCK_N) @ (BLOCK_N, BLOCK_D)
            m = m_new
        acc = acc / l[:, None]
        o_ptrs = O + bh * T * DH + rows[:, None] * DH + dims[None, :]
        tl.store(o_ptrs, acc.to(O.dtype.element_ty), mask=(rows[:, None] < T) & (dims[None, :] < DH))
        tl.store(L + bh * T + rows, m + tl.log(l), mask=rows < T)
    # end-kernel


def flash_attention_triton(
    q: Tensor, k: Tensor, v: Tensor, causal: bool = False, scale: float | None = None,
    block_m: int = 64, block_n: int = 64,
) -> tuple[Tensor, Tensor]:
    """Launch the Triton forward kernel; returns ``(output, logsumexp)`` like
    :func:`attnlab.flash.flash_attention_forward`.

    Shape:
        q: ``(..., T, Dh)``, k and v: ``(..., S, Dh)`` -> output ``(..., T, Dh)``, logsumexp ``(..., T)``
    """
    reason = why_unavailable()
    if reason is not None:
        raise RuntimeError(reason)
    if q.shape[-1] != k.shape[-1] or k.shape != v.shape or q.shape[:-2] != k.shape[:-2]:
        raise ValueError(f"need q (..., T, Dh) and k, v (..., S, Dh) with equal leading dims, got "
                         f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    if k.shape[-2] == 0:
        raise ValueError("attention needs at least one key (S >= 1)")
    if len({q.device, k.device, v.device}) > 1:
        raise ValueError(f"q, k and v must be on one device, got {q.device}, {k.device}, {v.device}")
    if not INTERPRETED and q.device.type != "cuda":
        raise ValueError(f"the compiled Triton kernel needs CUDA tensors, got {q.device.type} tensors: move q, k, v "
                         "to the GPU (.to('cuda')), or set TRITON_INTERPRET=1 before triton is first imported "
                         "to run the kernel in the CPU interpreter")
    if q.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise TypeError(f"the kernel takes float16, bfloat16 or float32, got {q.dtype}")
    if min(block_m, block_n) < 16 or block_m & (block_m - 1) or block_n & (block_n - 1):
        raise ValueError(f"blocks must be powers of two >= 16 (tl.dot), got {block_m}, {block_n}")
    lead, (t, dh), s = q.shape[:-2], q.shape[-2:], k.shape[-2]
    scale = 1.0 / math.sqrt(dh) if scale is None else scale
    q3, k3, v3 = (x.reshape(-1, x.shape[-2], dh).contiguous() for x in (q, k, v))  # (BH, n, Dh)
    out = torch.empty_like(q3)
    lse = torch.empty(q3.shape[:-1], dtype=torch.float32, device=q.device)
    grid = (triton.cdiv(t, block_m), q3.shape[0])
    _flash_forward_kernel[grid](
        q3, k3, v3, out, lse, t, s, dh, scale,
        CAUSAL=causal, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_D=max(16, triton.next_power_of_2(dh)),
    )
    return out.reshape(*lead, t, dh), lse.reshape(*lead, t)
