"""Translating many sentences in batches and scoring them with sacreBLEU."""

from __future__ import annotations

import torch

from attnlab.translate.decoding import beam_search, greedy
from attnlab.translate.tokens import BOS, EOS, decode, encode, pad_batch


@torch.no_grad()
def translate(model, tokenizer, sentences: list[str], beam_size: int = 5, alpha: float = 0.6,
              batch_size: int = 64, max_extra: int = 50, max_sentence_tokens: int = 128) -> list[str]:
    """Translations of ``sentences`` in their order (``beam_size=1``: greedy with the cache).

    Sentences are decoded in batches of similar length; each batch may produce up to its longest
    source length plus ``max_extra`` tokens.
    """
    if not sentences:
        return []
    device = next(model.parameters()).device
    model.eval()
    ids = encode(tokenizer, sentences, max_sentence_tokens)
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    out: list[str | None] = [None] * len(ids)
    for start in range(0, len(order), batch_size):
        chunk = order[start:start + batch_size]
        src = pad_batch([ids[i] for i in chunk]).to(device)
        max_len = src.shape[1] + max_extra
        if beam_size == 1:
            hyps = greedy(model, src, BOS, EOS, max_len)
        else:
            hyps = beam_search(model, src, BOS, EOS, beam_size, max_len, alpha)
        for i, hyp in zip(chunk, hyps):
            out[i] = decode(tokenizer, hyp)
    return out


def corpus_bleu(hypotheses: list[str], references: list[str]) -> tuple[float, str]:
    """sacreBLEU corpus BLEU of detokenized text against one reference each, and its signature."""
    from sacrebleu.metrics import BLEU

    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    metric = BLEU()
    score = metric.corpus_score(hypotheses, [references])
    return score.score, str(metric.get_signature())
