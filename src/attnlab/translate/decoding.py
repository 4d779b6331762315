"""Decoding for :class:`attnlab.transformer.Seq2SeqTransformer`: batched beam search with a length
penalty, using the decoder's key/value cache, and a helper that reads cross-attention weights."""

from __future__ import annotations

import torch
from torch import Tensor

from attnlab.attention import causal_mask


def length_penalty(length: Tensor | int, alpha: float) -> Tensor | float:
    """GNMT's length penalty ``((5 + length) / 6) ** alpha`` (Wu et al., 2016); ``alpha = 0`` turns it off."""
    return ((5 + length) / 6) ** alpha


def _reorder_cache(cache: list[dict], order: Tensor) -> None:
    for layer in cache:
        for part in layer.values():  # "self" and "cross"
            for key in part:
                part[key] = part[key].index_select(0, order)


# start-beam
@torch.no_grad()
def beam_search(model, src: Tensor, bos_id: int, eos_id: int, beam_size: int = 5, max_len: int = 100,
                alpha: float = 0.6, use_cache: bool = True) -> list[list[int]]:
    """The best hypothesis per sentence: token ids after ``<bos>``, ending with ``<eos>`` unless
    ``max_len`` tokens were produced first.

    Every step scores ``beam_size`` live hypotheses per sentence against the whole vocabulary and
    keeps the best ``2 * beam_size`` candidates. Candidates among the first ``beam_size`` that end
    with ``<eos>`` are finished, scored by log-probability / :func:`length_penalty`; the best
    ``beam_size`` others stay live. A sentence is done once it has ``beam_size`` finished
    hypotheses. With ``beam_size=1`` this is greedy decoding.

    Shape:
        src: ``(B, S)`` token ids -> ``B`` lists of ids
    """
    if beam_size < 1:
        raise ValueError(f"beam_size must be at least 1, got {beam_size}")
    batch, k, device = src.shape[0], beam_size, src.device
    memory, src_allowed = model.encode(src)  # (B, S, D), (B, 1, S)
    memory, src_allowed = memory.repeat_interleave(k, 0), src_allowed.repeat_interleave(k, 0)  # (B*K, ...)
    tokens = torch.full((batch * k, 1), bos_id, dtype=torch.long, device=device)
    scores = torch.full((batch, k), float("-inf"), device=device)
    scores[:, 0] = 0.0  # at the start the K beams are copies: keep only one of them alive
    cache = [{} for _ in model.core.decoder_layers] if use_cache else None
    finished: list[list[tuple[float, list[int]]]] = [[] for _ in range(batch)]
    done = torch.zeros(batch, dtype=torch.bool)
    for step in range(max_len):
        if use_cache:
            h = model.core.decode(model.embed(tokens[:, -1:], model.tgt_embed, offset=step), memory, None,
                                  src_allowed, cache)[:, -1]
        else:
            allowed = causal_mask(tokens.shape[1], device=device)
            h = model.core.decode(model.embed(tokens, model.tgt_embed), memory, allowed, src_allowed)[:, -1]
        logp = torch.log_softmax(model.generator(h).float(), dim=-1)  # (B*K, V)
        vocab = logp.shape[-1]
        candidates = (scores.reshape(-1, 1) + logp).reshape(batch, k * vocab)  # (B, K*V)
        top_scores, top_index = candidates.topk(min(2 * k, k * vocab), dim=-1)  # (B, 2K)
        beam_of, token_of = top_index // vocab, top_index % vocab
        last = step == max_len - 1
        new_scores = torch.full((batch, k), float("-inf"), device=device)
        new_rows = torch.arange(batch * k).reshape(batch, k)  # unused slots keep their own row
        new_tokens = torch.full((batch, k), eos_id, dtype=torch.long)
        top_scores_l, beam_l, token_l = top_scores.tolist(), beam_of.tolist(), token_of.tolist()
        for b in range(batch):
            if done[b]:
                continue
            alive = 0
            for rank, (score, beam, token) in enumerate(zip(top_scores_l[b], beam_l[b], token_l[b])):
                if score == float("-inf"):
                    break
                row = b * k + beam
                if token == eos_id or last:
                    if rank < k:  # only candidates that rank among the best K may finish
                        hyp = tokens[row, 1:].tolist() + [token]
                        finished[b].append((score / length_penalty(len(hyp), alpha), hyp))
                    continue
                if alive < k:
                    new_scores[b, alive], new_rows[b, alive], new_tokens[b, alive] = score, row, token
                    alive += 1
            if len(finished[b]) >= k or alive == 0:
                done[b] = True
        if done.all():
            break
        order = new_rows.reshape(-1).to(device)
        tokens = torch.cat([tokens.index_select(0, order), new_tokens.reshape(-1, 1).to(device)], dim=1)
        scores = new_scores.masked_fill(done.to(device)[:, None], float("-inf"))
        if use_cache:
            _reorder_cache(cache, order)
    return [max(hyps, key=lambda pair: pair[0])[1] for hyps in finished]
# end-beam


@torch.no_grad()
def greedy(model, src: Tensor, bos_id: int, eos_id: int, max_len: int = 100) -> list[list[int]]:
    """Greedy decoding with the cache (:meth:`Seq2SeqTransformer.greedy_decode`), as lists of ids
    after ``<bos>``, each cut after its first ``<eos>``."""
    out = model.greedy_decode(src, bos_id, eos_id, max_len)[:, 1:].tolist()
    return [row[:row.index(eos_id) + 1] if eos_id in row else row for row in out]


@torch.no_grad()
def cross_attention(model, src: Tensor, tgt_in: Tensor, layer: int = -1) -> Tensor:
    """Cross-attention weights of one decoder layer, averaged over heads, for teacher-forced targets.

    Shape:
        src: ``(B, S)``, tgt_in: ``(B, T)`` -> ``(B, T, S)``
    """
    captured = {}
    attn = model.core.decoder_layers[layer].cross_attn

    def hook(module, args, kwargs, output):
        query, memory, allowed = args[0], args[1], args[2]
        captured["weights"] = module.forward(query, memory, allowed, need_weights=True)[1]  # forward(): no hook recursion

    handle = attn.register_forward_hook(hook, with_kwargs=True)
    try:
        model(src, tgt_in)
    finally:
        handle.remove()
    return captured["weights"].mean(dim=1)
