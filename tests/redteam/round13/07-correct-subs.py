P8_GATHER = r'''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    row_ok = rows < N
    n_groups = K // GROUP
    half_k = K // 2
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + ks)
        m2 = row_ok[:, None]
        byte = tl.load(W + rows[:, None] * half_k + (ks // 2)[None, :], mask=m2, other=0).to(tl.int32)
        code = (byte >> ((ks % 2) * 4)[None, :]) & 15
        g = (ks // GROUP)[None, :]
        z = tl.load(Zero + rows[:, None] * n_groups + g, mask=m2, other=0).to(tl.int32)
        s = tl.load(Scale + rows[:, None] * n_groups + g, mask=m2, other=0.0)
        w = (code - z).to(tl.float32) * s
        acc += tl.sum(w * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=row_ok)
'''

P8_EVEN_ODD_CLAMPED = r'''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    n_safe = tl.minimum(n, N - 1)          # every address inside the tensors, no load mask needed
    HALF: tl.constexpr = BLOCK_K // 2
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    k0 = 0
    while k0 < K:
        b = k0 // 2 + tl.arange(0, HALF)                      # byte columns of this block
        byte = tl.load(W + n_safe[:, None] * (K // 2) + b[None, :])
        lo = (byte & 15).to(tl.float32)
        hi = (byte >> 4).to(tl.float32)
        ke = 2 * b
        ko = 2 * b + 1
        xe = tl.load(X + ke)
        xo = tl.load(X + ko)
        base = n_safe[:, None] * (K // GROUP)
        ze = tl.load(Zero + base + (ke // GROUP)[None, :]).to(tl.float32)
        zo = tl.load(Zero + base + (ko // GROUP)[None, :]).to(tl.float32)
        se = tl.load(Scale + base + (ke // GROUP)[None, :])
        so = tl.load(Scale + base + (ko // GROUP)[None, :])
        acc += tl.sum((lo - ze) * se * xe[None, :] + (hi - zo) * so * xo[None, :], axis=1)
        k0 += BLOCK_K
    tl.store(Y + n, acc, mask=n < N)
'''

P8_ACC2D_WHERE = r'''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    row0 = tl.program_id(axis=0) * BLOCK_N
    offs_n = row0 + tl.arange(0, BLOCK_N)
    keep = offs_n < N
    acc2 = tl.zeros((BLOCK_N, BLOCK_K), dtype=tl.float32)
    for start in tl.range(0, K, BLOCK_K):
        offs_k = start + tl.arange(0, BLOCK_K)
        mask2 = keep[:, None] & (offs_k[None, :] < K)
        raw = tl.load(W + offs_n[:, None] * (K // 2) + offs_k[None, :] // 2, mask=mask2, other=0)
        code = tl.where((offs_k % 2 == 0)[None, :], raw & 0xF, raw >> 4)
        zp = tl.load(Zero + offs_n[:, None] * (K // GROUP) + offs_k[None, :] // GROUP, mask=mask2, other=0)
        sc = tl.load(Scale + offs_n[:, None] * (K // GROUP) + offs_k[None, :] // GROUP, mask=mask2, other=1.0)
        xv = tl.load(X + offs_k, mask=offs_k < K, other=0.0)
        acc2 += (xv[None, :] * sc) * (code.to(tl.float32) - zp.to(tl.float32))
    tl.store(Y + offs_n, tl.sum(acc2, axis=1), mask=keep)
'''

P5_VIEW = r'''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_f, in_f // group_size, group_size)
    zero_t = torch.zeros((), dtype=w.dtype)
    lo = torch.minimum(g.amin(dim=-1), zero_t)
    hi = torch.maximum(g.amax(dim=-1), zero_t)
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    n_groups = scale.shape[1]
    if n_groups == 0:
        return torch.zeros((out_f, in_f), dtype=scale.dtype)
    gs = in_f // n_groups
    diff = q.to(torch.int16).reshape(out_f, n_groups, gs) - zero.to(torch.int16)[..., None]
    return (scale[..., None] * diff).reshape(out_f, in_f)
'''

P5_LOOP = r'''
def quantize_asym(w, bits, group_size):
    rows, cols = w.shape
    top = float(2 ** bits - 1)
    n_groups = cols // group_size
    q = torch.empty((rows, cols), dtype=torch.uint8)
    scale = torch.empty((rows, n_groups), dtype=w.dtype)
    zero = torch.empty((rows, n_groups), dtype=torch.uint8)
    for j in range(n_groups):
        block = w[:, j * group_size:(j + 1) * group_size]
        lo = block.min(dim=1).values.clamp(max=0)
        hi = block.max(dim=1).values.clamp(min=0)
        s = (hi - lo) / top
        s[(hi - lo) == 0] = 1
        z = torch.round(lo.neg() / s)
        qq = torch.round(block / s[:, None]).add_(z[:, None]).clamp_(min=0, max=top)
        q[:, j * group_size:(j + 1) * group_size] = qq.to(torch.uint8)
        scale[:, j] = s
        zero[:, j] = z.to(torch.uint8)
    return q, scale, zero


def dequantize_asym(q, scale, zero):
    rows, cols = q.shape
    gs = cols // scale.shape[1] if scale.shape[1] else 1
    s_full = scale.repeat_interleave(gs, dim=1)
    z_full = zero.repeat_interleave(gs, dim=1).to(scale.dtype)
    return s_full * (q.to(scale.dtype) - z_full)
'''

P8_ROWS_FMA = r'''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    first = tl.program_id(0) * BLOCK_N
    for r in tl.static_range(BLOCK_N):
        row = first + r
        valid = row < N
        row_c = tl.where(valid, row, 0)            # a row that exists, so every address is inside
        part = tl.zeros([BLOCK_K], dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            kk = k0 + tl.arange(0, BLOCK_K)
            byte = tl.load(W + row_c * (K // 2) + kk // 2).to(tl.int32)
            code = tl.where(kk % 2 == 1, byte // 16, byte % 16)
            zp = tl.load(Zero + row_c * (K // GROUP) + kk // GROUP).to(tl.int32)
            sc = tl.load(Scale + row_c * (K // GROUP) + kk // GROUP)
            part = tl.fma((code - zp).to(tl.float32) * sc, tl.load(X + kk), part)
        tl.store(Y + row, tl.sum(part, axis=0), mask=valid)
'''

SUBMISSIONS = [
    {"name": "p8_row_at_a_time_fma", "correct": True, "cells": {"split_kv_kernel": P8_ROWS_FMA}, "why": "one row at a time with tl.static_range, a row index clamped with where, // and % for nibbles, tl.fma accumulation, scalar masked store"},
    {"name": "p5_grouped_view_int16", "correct": True, "cells": {"quantize_asym": P5_VIEW}, "why": "3-D view of groups, where for zero groups, int16 difference"},
    {"name": "p5_loop_over_groups_inplace", "correct": True, "cells": {"quantize_asym": P5_LOOP}, "why": "loop over group columns, in-place add_/clamp_ on own tensors, repeat_interleave"},
    {"name": "p8_gather_per_element", "correct": True, "cells": {"split_kv_kernel": P8_GATHER}, "why": "per-element byte/group gathers, shift by (k % 2) * 4, masked loads"},
    {"name": "p8_even_odd_clamped_rows", "correct": True, "cells": {"split_kv_kernel": P8_EVEN_ODD_CLAMPED}, "why": "bytes split into low/high nibbles, rows clamped to N-1 so no load mask, while loop"},
    {"name": "p8_acc2d_where", "correct": True, "cells": {"split_kv_kernel": P8_ACC2D_WHERE}, "why": "2-D float32 accumulator summed once, tl.where nibble choice, x*s first, tl.range"},
]
