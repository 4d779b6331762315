"""Positional information for attention (chapter 4): sinusoidal tables, RoPE, ALiBi and relative
position biases (Shaw et al.; T5 buckets)."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn


# start-sinusoidal
def sinusoidal_encoding(length: int, d_model: int, base: float = 10000.0, *, device=None, dtype=None) -> Tensor:
    """The table of Vaswani et al.: ``PE[pos, 2i] = sin(pos / base^(2i/D))``, ``PE[pos, 2i+1] = cos(...)``.

    Sines and cosines are interleaved: column ``2i`` is a sine and column ``2i+1`` the cosine of
    the same frequency.

    Shape:
        -> ``(T, D)`` with ``T = length``, ``D = d_model`` (``D`` even)
    """
    if d_model % 2:
        raise ValueError(f"d_model must be even to pair sines with cosines, got {d_model}")
    if length < 0:
        raise ValueError(f"length must be non-negative, got {length}")
    pos = torch.arange(length, device=device, dtype=torch.float64)[:, None]  # (T, 1)
    freq = base ** (-torch.arange(0, d_model, 2, device=device, dtype=torch.float64) / d_model)  # (D/2,)
    angle = pos * freq  # (T, 1) * (D/2,) -> (T, D/2)
    table = torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(-2)  # (T, D/2, 2) -> (T, D)
    return table.to(dtype or torch.get_default_dtype())


def add_sinusoidal_positions(embeddings: Tensor, base: float = 10000.0) -> Tensor:
    """``embeddings * sqrt(D) + PE``: token embeddings scaled up before the positions are added.

    Shape:
        embeddings: ``(B, T, D)`` -> ``(B, T, D)``
    """
    t, d = embeddings.shape[-2:]
    pe = sinusoidal_encoding(t, d, base, device=embeddings.device, dtype=embeddings.dtype)
    return embeddings * math.sqrt(d) + pe  # (B, T, D) + (T, D) -> (B, T, D)
# end-sinusoidal


def sinusoidal_shift_matrix(offset: int, d_model: int, base: float = 10000.0, dtype=None) -> Tensor:
    """The fixed matrix ``M_k`` with ``PE[pos + k] = PE[pos] @ M_k`` for every position ``pos``.

    It is block-diagonal: one 2x2 rotation by angle ``k * freq_i`` per sine/cosine pair.

    Shape:
        -> ``(D, D)``
    """
    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    c, s = (offset * freq).cos(), (offset * freq).sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(0, d_model, 2)
    # row vector (sin a, cos a) @ [[c, -s], [s, c]] = (sin a c + cos a s, -sin a s + cos a c) = (sin(a+b), cos(a+b))
    m[i, i], m[i, i + 1], m[i + 1, i], m[i + 1, i + 1] = c, -s, s, c
    return m.to(dtype or torch.get_default_dtype())


# start-rope
def rope_angles(positions: Tensor, head_dim: int, base: float = 10000.0) -> Tensor:
    """The rotation angles ``pos * base^(-2i/Dh)`` of every position and pair, in float64.

    Shape:
        positions: ``(..., T)`` -> ``(..., T, Dh/2)``
    """
    freq = base ** (-torch.arange(0, head_dim, 2, device=positions.device, dtype=torch.float64) / head_dim)  # (Dh/2,)
    return positions.to(torch.float64)[..., None] * freq  # (..., T, 1) * (Dh/2,) -> (..., T, Dh/2)


def rope_positions(x: Tensor, positions: Tensor | None) -> Tensor:
    """``positions`` checked against ``x``: ``(T,)``, or one axis per leading axis of ``x``, each of
    size 1 or equal (``(B, 1, T)`` for ``x`` of shape ``(B, H, T, Dh)``). ``None`` gives ``0..T-1``."""
    t = x.shape[-2]
    if positions is None:
        return torch.arange(t, device=x.device)
    positions = torch.as_tensor(positions, device=x.device)
    lead, want = tuple(positions.shape[:-1]), tuple(x.shape[:-2])
    fits = positions.dim() >= 1 and positions.shape[-1] == t and (
        not lead or (len(lead) == len(want) and all(p in (1, w) for p, w in zip(lead, want))))
    if not fits:
        hint = ""
        if positions.dim() >= 2 and positions.shape[-1] == t and len(lead) < len(want):
            hint = (f"; give it one axis per leading axis of x, e.g. positions[:, None, :] of shape "
                    f"{tuple(positions.shape[:1]) + (1,) * (len(want) - len(lead)) + (t,)} for x of shape (B, H, T, Dh)")
        raise ValueError(f"positions of shape {tuple(positions.shape)} do not fit x of shape {tuple(x.shape)}: "
                         f"use (T,) = ({t},) or {want + (t,)} with 1 where all rows share the positions{hint}")
    if positions.dtype.is_floating_point or positions.dtype == torch.bool:
        raise TypeError(f"positions must be integers, got dtype {positions.dtype}")
    return positions


def rotate_half(x: Tensor) -> Tensor:
    """``(x1, x2) -> (-x2, x1)`` on the two halves of the last axis (the half-split layout's 90° turn)."""
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


def rope(x: Tensor, positions: Tensor | None = None, base: float = 10000.0, pairing: str = "adjacent") -> Tensor:
    """Rotary position embedding: rotate each pair of features by ``pos * base^(-2i/Dh)``.

    Applied to queries and keys (not values), it makes ``rope(q)_m · rope(k)_n`` a function of
    ``q``, ``k`` and ``m - n`` only. ``pairing="adjacent"`` rotates ``(x[2i], x[2i+1])`` (the
    paper, Meta's Llama code); ``pairing="half"`` rotates ``(x[i], x[i + Dh/2])`` (GPT-NeoX, Hugging
    Face's Llama). The two are the same rotation after a fixed permutation of the features
    (:func:`rope_half_permutation`). ``positions`` defaults to ``0..T-1``.

    Shape:
        x: ``(..., T, Dh)``, positions: ``(T,)`` or ``(..., T)`` (see :func:`rope_positions`)
        -> ``(..., T, Dh)``
    """
    t, dh = x.shape[-2:]
    if dh % 2:
        raise ValueError(f"RoPE rotates pairs of features, so the head width must be even, got {dh}")
    if pairing not in ("adjacent", "half"):
        raise ValueError(f"pairing must be 'adjacent' or 'half', got {pairing!r}")
    angle = rope_angles(rope_positions(x, positions), dh, base)  # (..., T, Dh/2)
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    if pairing == "half":
        cos, sin = torch.cat([cos, cos], dim=-1), torch.cat([sin, sin], dim=-1)  # (..., T, Dh)
        return x * cos + rotate_half(x) * sin
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., T, Dh/2) each
    rotated = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)  # (..., T, Dh/2, 2)
    return rotated.flatten(-2)  # (..., T, Dh)


def rope_half_permutation(head_dim: int) -> Tensor:
    """The feature order that turns the adjacent layout into the half-split one: even features
    first, then odd ones. For every ``x``: ``rope(x, pairing="adjacent")[..., perm]`` equals
    ``rope(x[..., perm], pairing="half")`` (to rounding); converting a checkpoint from one layout to
    the other permutes the rows of the query and key projections by it.

    Shape:
        -> ``(Dh,)``
    """
    if head_dim % 2:
        raise ValueError(f"the head width must be even, got {head_dim}")
    return torch.cat([torch.arange(0, head_dim, 2), torch.arange(1, head_dim, 2)])
# end-rope


# start-alibi
def alibi_slopes(num_heads: int) -> Tensor:
    """ALiBi's per-head slopes: the geometric sequence ``2^(-8/H), 2^(-16/H), ..., 2^(-8)``.

    For a number of heads that is not a power of two, Press et al. take the slopes of the next
    lower power of two and fill up with every other slope of the next higher one.

    Shape:
        -> ``(H,)``
    """
    if num_heads < 1:
        raise ValueError(f"num_heads must be positive, got {num_heads}")

    def power_of_two(n: int) -> list[float]:
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]

    lower = 2 ** math.floor(math.log2(num_heads))
    slopes = power_of_two(lower)
    if lower < num_heads:
        slopes += power_of_two(2 * lower)[0::2][: num_heads - lower]
    return torch.tensor(slopes)


def alibi_bias(num_heads: int, t: int, s: int | None = None, *, device=None) -> Tensor:
    """The bias ALiBi adds to the attention scores: ``-slope_h * |i - j|``.

    Added to ``q kᵀ / sqrt(d_k)`` before the softmax; a causal mask hides ``j > i`` as usual.
    Query ``i`` is aligned with key ``i`` (top left, as :func:`attnlab.causal_mask`).

    Shape:
        -> ``(H, T, S)``
    """
    s = t if s is None else s
    distance = (torch.arange(t, device=device)[:, None] - torch.arange(s, device=device)[None, :]).abs()  # (T, S)
    return -alibi_slopes(num_heads).to(device)[:, None, None] * distance  # (H, 1, 1) * (T, S) -> (H, T, S)
# end-alibi


def t5_relative_bucket(relative_position: Tensor, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True) -> Tensor:
    """T5's bucket index for ``relative_position = j - i`` (key minus query).

    Half of the buckets (all of them if not bidirectional) cover small distances exactly; the
    rest cover distances up to ``max_distance`` on a log scale, and farther ones share the last
    bucket. With ``bidirectional`` the other half is used for keys after the query.
    """
    n = -relative_position
    bucket = torch.zeros_like(n)
    if bidirectional:
        num_buckets //= 2
        bucket = bucket + (n < 0).long() * num_buckets
        n = n.abs()
    else:
        n = n.clamp_min(0)
    exact = num_buckets // 2
    is_small = n < exact
    log_ratio = torch.log(n.float().clamp_min(1) / exact) / math.log(max_distance / exact)
    large = exact + (log_ratio * (num_buckets - exact)).long()
    large = large.clamp_max(num_buckets - 1)
    return bucket + torch.where(is_small, n, large)


class RelativePositionBias(nn.Module):
    """A learned bias per head and per relative-distance bucket (T5), added to the scores.

    Shape:
        forward(t, s) -> ``(H, T, S)``
    """

    def __init__(self, num_heads: int, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = False, device=None, dtype=None):
        super().__init__()
        self.num_buckets, self.max_distance, self.bidirectional = num_buckets, max_distance, bidirectional
        self.bias = nn.Embedding(num_buckets, num_heads, device=device, dtype=dtype)

    def forward(self, t: int, s: int | None = None) -> Tensor:
        s = t if s is None else s
        device = self.bias.weight.device
        rel = torch.arange(s, device=device)[None, :] - torch.arange(t, device=device)[:, None]  # (T, S): j - i
        buckets = t5_relative_bucket(rel, self.num_buckets, self.max_distance, self.bidirectional)
        return self.bias(buckets).permute(2, 0, 1)  # (T, S, H) -> (H, T, S)


def shaw_relative_scores(q: Tensor, relative_keys: Tensor, s: int | None = None) -> Tensor:
    """Shaw et al.'s extra score term ``q_i · a_{clip(j - i)}`` from learned relative key vectors.

    ``relative_keys`` holds ``2K + 1`` vectors for the clipped distances ``-K..K``; add the result
    to ``q kᵀ`` before scaling.

    Shape:
        q: ``(..., T, Dh)``, relative_keys: ``(2K+1, Dh)`` -> ``(..., T, S)``
    """
    t = q.shape[-2]
    s = t if s is None else s
    k_max = (relative_keys.shape[0] - 1) // 2
    rel = torch.arange(s, device=q.device)[None, :] - torch.arange(t, device=q.device)[:, None]  # (T, S)
    a = relative_keys[rel.clamp(-k_max, k_max) + k_max]  # (T, S, Dh)
    return torch.einsum("...td,tsd->...ts", q, a)  # (..., T, Dh) x (T, S, Dh) -> (..., T, S)
