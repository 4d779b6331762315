"""Mixture of experts (chapter 6): top-k routing, expert capacity, the Switch Transformer's
load-balancing loss and a mixture-of-experts feed-forward layer."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from attnlab.layers import FeedForward


def expert_capacity(num_tokens: int, num_experts: int, capacity_factor: float = 1.0, top_k: int = 1) -> int:
    """Slots per expert: ``ceil(capacity_factor · k · N / E)``; tokens beyond them are dropped."""
    if num_experts < 1 or capacity_factor <= 0:
        raise ValueError(f"need num_experts >= 1 and capacity_factor > 0, got {num_experts}, {capacity_factor}")
    return math.ceil(capacity_factor * top_k * num_tokens / num_experts)


@dataclass
class Routing:
    """Where each token goes. ``expert``/``gate``/``kept`` are ``(N, k)``; ``probs`` is ``(N, E)``."""

    expert: Tensor
    gate: Tensor
    kept: Tensor
    probs: Tensor

    @property
    def dropped(self) -> int:
        """Token-to-expert assignments that found their expert full."""
        return int((~self.kept).sum())


# start-route
def route_top_k(router_logits: Tensor, top_k: int, capacity: int) -> Routing:
    """Send each token to its ``top_k`` most probable experts, first come first served.

    An expert accepts at most ``capacity`` assignments, in token order (first choices of all
    tokens before second choices, as in GShard); the rest are dropped and the token's residual
    connection carries it unchanged. Gates are the router's softmax probabilities, renormalised
    over the chosen experts when ``top_k > 1`` (Switch uses ``top_k = 1`` and the raw probability).

    Shape:
        router_logits: ``(N, E)`` -> :class:`Routing` with ``(N, k)`` fields
    """
    n, e = router_logits.shape
    if not 1 <= top_k <= e:
        raise ValueError(f"top_k must be in 1..{e}, got {top_k}")
    probs = torch.softmax(router_logits, dim=-1)  # (N, E)
    gate, expert = probs.topk(top_k, dim=-1)  # (N, k)
    if top_k > 1:
        gate = gate / gate.sum(-1, keepdim=True)
    one_hot = torch.nn.functional.one_hot(expert.T.reshape(-1), e)  # (k·N, E), choice-major order
    position = (one_hot.cumsum(0) - 1)[one_hot.bool()]  # (k·N,) place of each assignment in its expert's queue
    kept = (position < capacity).reshape(top_k, n).T  # (N, k)
    return Routing(expert, gate, kept, probs)
# end-route


# start-balance
def load_balancing_loss(probs: Tensor, expert: Tensor) -> Tensor:
    """Switch Transformer auxiliary loss ``E · Σ_i f_i · P_i``.

    ``f_i``: fraction of tokens whose first choice is expert ``i`` (not differentiable);
    ``P_i``: mean router probability of expert ``i`` (differentiable). It equals 1 under uniform
    routing; when ``f`` matches ``P`` it is ``E · Σ f_i² >= 1`` (Cauchy-Schwarz) and grows as routing
    concentrates, so minimising it pushes towards balance. It is not a strict lower bound: when
    ``f`` and ``P`` disagree, unbalanced routing can score below 1.

    Shape:
        probs: ``(N, E)``, expert: ``(N,)`` or ``(N, k)`` (column 0 used) -> scalar
    """
    e = probs.shape[-1]
    first = expert if expert.dim() == 1 else expert[:, 0]
    f = torch.bincount(first, minlength=e).to(probs.dtype) / first.numel()  # (E,)
    p = probs.mean(dim=0)  # (E,)
    return e * (f * p).sum()
# end-balance


class MoEFeedForward(nn.Module):
    """``E`` feed-forward experts behind a linear router; each token uses ``top_k`` of them.

    ``forward`` returns the output (dropped tokens get zeros from this layer, so a residual
    connection around it passes them on unchanged) and the :class:`Routing`.

    Shape:
        x: ``(B, T, D)`` -> ``(B, T, D)``
    """

    def __init__(self, d_model: int, d_ff: int, num_experts: int, top_k: int = 1, capacity_factor: float = 1.25,
                 device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.top_k, self.capacity_factor = top_k, capacity_factor
        self.router = nn.Linear(d_model, num_experts, bias=False, **factory)
        self.experts = nn.ModuleList(FeedForward(d_model, d_ff, **factory) for _ in range(num_experts))

    def forward(self, x: Tensor) -> tuple[Tensor, Routing]:
        tokens = x.reshape(-1, x.shape[-1])  # (B, T, D) -> (N, D)
        cap = expert_capacity(tokens.shape[0], len(self.experts), self.capacity_factor, self.top_k)
        r = route_top_k(self.router(tokens), self.top_k, cap)
        out = torch.zeros_like(tokens)
        for i, expert in enumerate(self.experts):
            rows, slot = torch.nonzero((r.expert == i) & r.kept, as_tuple=True)  # tokens this expert serves
            if rows.numel():
                out.index_add_(0, rows, r.gate[rows, slot, None] * expert(tokens[rows]))
        return out.reshape(x.shape), r
