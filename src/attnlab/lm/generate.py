"""Generating text from :class:`attnlab.lm.model.DecoderLM` (chapter 9): greedy, temperature and top-p
sampling (chapter 6's filters), with or without the key/value cache."""

from __future__ import annotations

import time

import torch
from torch import Tensor

from attnlab.variants.sampling import sample_next


# start-generate
@torch.no_grad()
def generate(model, prompt: Tensor, max_new_tokens: int, temperature: float | None = None, top_p: float | None = None,
             eos_id: int | None = None, use_cache: bool = True, generator: torch.Generator | None = None) -> Tensor:
    """Continue ``prompt`` by up to ``max_new_tokens`` tokens.

    ``temperature=None`` is greedy (argmax); otherwise each token is sampled after dividing the
    logits by ``temperature`` and, with ``top_p``, keeping only the nucleus. With ``use_cache`` the
    prompt is read once and every later step feeds only the newest token; without it every step
    recomputes the whole sequence (same tokens, more work). A row that has produced ``eos_id``
    keeps producing it; generation stops when all rows have.

    Shape:
        prompt: ``(B, T)`` -> ``(B, T + new)`` with ``new <= max_new_tokens``
    """
    if prompt.dim() != 2 or prompt.shape[1] == 0:
        raise ValueError(f"prompt must be (B, T) token ids with T >= 1, got shape {tuple(prompt.shape)}")
    if temperature is None and top_p is not None:
        raise ValueError("top_p needs sampling: give a temperature (1.0 keeps the model's distribution)")
    model.eval()
    out = prompt
    cache = model.new_cache() if use_cache else None
    done = torch.zeros(prompt.shape[0], dtype=torch.bool, device=prompt.device)
    for step in range(max_new_tokens):
        if use_cache:
            logits = model(out if step == 0 else out[:, -1:], cache)[:, -1]  # (B, V): only the new positions
        else:
            logits = model(out)[:, -1]  # (B, V): the whole sequence again
        if temperature is None:
            token = logits.argmax(-1)
        else:
            token = sample_next(logits.float(), temperature, top_p=top_p, generator=generator)
        if eos_id is not None:
            token = token.masked_fill(done, eos_id)
            done |= token == eos_id
        out = torch.cat([out, token[:, None]], dim=1)  # (B, t) -> (B, t + 1)
        if eos_id is not None and done.all():
            break
    return out
# end-generate


def seconds_per_token(model, prompt: Tensor, new_tokens: int, use_cache: bool, repeats: int = 3) -> float:
    """Best of ``repeats`` greedy runs: seconds per generated token (no ``eos_id``, so exactly ``new_tokens``)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        generate(model, prompt, new_tokens, use_cache=use_cache)
        best = min(best, (time.perf_counter() - start) / new_tokens)
    return best
