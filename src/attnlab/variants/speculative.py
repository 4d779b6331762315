"""Speculative decoding (chapter 6): a small draft model proposes tokens, the target model
verifies them in one pass, and the acceptance rule keeps the output distributed exactly as the
target model's (Leviathan et al. 2023; Chen et al. 2023)."""

from __future__ import annotations

from typing import Callable

import torch
from torch import Tensor

ProbsFn = Callable[[list[int]], Tensor]


# start-accept
def residual_distribution(p: Tensor, q: Tensor) -> Tensor:
    """``norm(max(0, p − q))``: where to sample after rejecting a draft token. If ``p == q``
    (nothing left), returns ``p``, which a rejection then never reaches."""
    r = (p - q).clamp_min(0)
    total = r.sum(-1, keepdim=True)
    return torch.where(total > 0, r / total.clamp_min(1e-30), p)


def verify(p: Tensor, q: Tensor, draft: Tensor, u: Tensor) -> tuple[int, Tensor]:
    """Apply the acceptance rule to ``γ`` draft tokens.

    Draft token ``i`` is accepted when ``u[i] < p[i, x] / q[i, x]`` (so with probability
    ``min(1, p/q)``); at the first rejection the next token must be sampled from the residual
    distribution. If all are accepted, the next token is sampled from ``p[γ]`` (a free token).

    Shape:
        p: ``(γ+1, V)`` target probabilities, q: ``(γ, V)`` draft probabilities, draft: ``(γ,)``,
        u: ``(γ,)`` uniforms -> (number accepted, distribution ``(V,)`` of the next token)
    """
    gamma = draft.shape[0]
    if p.shape[0] != gamma + 1 or q.shape[0] != gamma:
        raise ValueError(f"need p of {gamma + 1} rows and q of {gamma} rows for {gamma} draft tokens, "
                         f"got {p.shape[0]} and {q.shape[0]}")
    idx = torch.arange(gamma)
    ratio = p[idx, draft] / q[idx, draft]
    for i in range(gamma):
        if not bool(u[i] < ratio[i]):
            return i, residual_distribution(p[i], q[i])
    return gamma, p[gamma]
# end-accept


# start-speculative
def speculative_generate(target: ProbsFn, draft: ProbsFn, prefix: list[int], num_tokens: int, gamma: int,
                         generator: torch.Generator | None = None) -> tuple[list[int], dict]:
    """Generate ``num_tokens`` tokens after ``prefix``; ``target``/``draft`` map a token list to the
    next-token probabilities ``(V,)``. Returns the tokens and counts: draft tokens proposed and
    accepted, draft tokens the rule was applied to (up to the first rejection), and target calls (one verification pass each, which a real model runs in parallel over
    the ``γ + 1`` positions).
    """
    if gamma < 1:
        raise ValueError(f"gamma must be >= 1, got {gamma}")
    out = list(prefix)
    stats = {"proposed": 0, "evaluated": 0, "accepted": 0, "target_calls": 0}
    while len(out) - len(prefix) < num_tokens:
        drafted, qs = [], []
        for _ in range(gamma):
            qi = draft(out + drafted)
            drafted.append(int(torch.multinomial(qi, 1, generator=generator)))
            qs.append(qi)
        ps = torch.stack([target(out + drafted[:i]) for i in range(gamma + 1)])  # one parallel pass in practice
        stats["target_calls"] += 1
        u = torch.rand(gamma, generator=generator, dtype=ps.dtype)
        n, nxt = verify(ps, torch.stack(qs), torch.tensor(drafted), u)
        stats["proposed"] += gamma
        stats["evaluated"] += min(n + 1, gamma)  # draft tokens after a rejection are never checked
        stats["accepted"] += n
        out += drafted[:n] + [int(torch.multinomial(nxt, 1, generator=generator))]
    return out[: len(prefix) + num_tokens], stats
# end-speculative


def expected_acceptance(p: Tensor, q: Tensor) -> Tensor:
    """Probability that one draft token is accepted: ``Σ_x min(p(x), q(x))``."""
    return torch.minimum(p, q).sum(-1)
