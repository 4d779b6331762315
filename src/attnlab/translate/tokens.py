"""Subword tokens and batches: a joint BPE vocabulary (Hugging Face ``tokenizers``) and batches
built by token count from sentences of similar length."""

from __future__ import annotations

import math

import torch
from torch import Tensor

SPECIALS = ("<pad>", "<bos>", "<eos>", "<unk>")
PAD, BOS, EOS, UNK = range(4)


# start-bpe
def train_bpe(texts, vocab_size: int = 8000, min_frequency: int = 2):
    """A BPE tokenizer learned from ``texts`` (both languages together: one joint vocabulary).

    Words are split on whitespace and punctuation first; a leading "▁" marks the start of a word, so
    decoding restores the spaces. Ids 0–3 are ``<pad> <bos> <eos> <unk>``.
    """
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Metaspace(), pre_tokenizers.Punctuation()])
    tokenizer.decoder = decoders.Metaspace()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                  special_tokens=list(SPECIALS), show_progress=False)
    tokenizer.train_from_iterator(texts, trainer)
    return tokenizer
# end-bpe


def load_bpe(json_text: str):
    """A tokenizer saved with ``tokenizer.to_str()`` (as in every checkpoint)."""
    from tokenizers import Tokenizer

    return Tokenizer.from_str(json_text)


def encode(tokenizer, sentences: list[str], max_len: int | None = None) -> list[list[int]]:
    """Token ids of each sentence followed by ``<eos>`` (truncated to ``max_len`` ids, ``<eos>`` kept)."""
    out = []
    for enc in tokenizer.encode_batch(sentences):
        ids = enc.ids
        if max_len is not None and len(ids) >= max_len:
            ids = ids[:max_len - 1]
        out.append(ids + [EOS])
    return out


def decode(tokenizer, ids) -> str:
    """Text of one id sequence, stopping at the first ``<eos>`` and ignoring ``<bos>`` and ``<pad>``."""
    ids = [int(i) for i in ids]
    if EOS in ids:
        ids = ids[:ids.index(EOS)]
    return tokenizer.decode([i for i in ids if i not in (PAD, BOS)])


# start-batches
def token_batches(src_lengths: list[int], tgt_lengths: list[int], max_tokens: int,
                  generator: torch.Generator | None = None) -> list[list[int]]:
    """Group sentence indices into batches of similar length holding at most ``max_tokens`` tokens.

    A batch's size counts padding: ``len(batch) * longest`` on each side must stay within
    ``max_tokens``. Sentences are sorted by length after a random shuffle (so equal lengths mix
    differently in every epoch) and the batch order is shuffled; without ``generator`` the
    order is deterministic. A sentence longer than ``max_tokens`` raises ``ValueError``.
    """
    n = len(src_lengths)
    if len(tgt_lengths) != n:
        raise ValueError(f"{n} source lengths but {len(tgt_lengths)} target lengths")
    longest = max(max(src_lengths, default=0), max(tgt_lengths, default=0))
    if longest > max_tokens:
        raise ValueError(f"a sentence has {longest} tokens, more than max_tokens={max_tokens}; raise max_tokens")
    order = torch.randperm(n, generator=generator).tolist() if generator is not None else list(range(n))
    order.sort(key=lambda i: (tgt_lengths[i], src_lengths[i]))  # stable: ties keep the shuffled order
    batches, current, width = [], [], 0
    for i in order:
        new_width = max(width, src_lengths[i], tgt_lengths[i])
        if current and new_width * (len(current) + 1) > max_tokens:
            batches.append(current)
            current, new_width = [], max(src_lengths[i], tgt_lengths[i])
        current.append(i)
        width = new_width
    if current:
        batches.append(current)
    if generator is not None:
        batches = [batches[i] for i in torch.randperm(len(batches), generator=generator).tolist()]
    return batches
# end-batches


def pad_batch(sequences: list[list[int]], pad_id: int = PAD, bos_id: int | None = None) -> Tensor:
    """``(B, longest)`` tensor of ids, right-padded; with ``bos_id`` each row starts with it."""
    prefix = [] if bos_id is None else [bos_id]
    rows = [prefix + list(s) for s in sequences]
    width = max(len(r) for r in rows)
    out = torch.full((len(rows), width), pad_id, dtype=torch.long)
    for i, row in enumerate(rows):
        out[i, :len(row)] = torch.tensor(row, dtype=torch.long)
    return out


def make_batch(src_ids: list[list[int]], tgt_ids: list[list[int]]) -> tuple[Tensor, Tensor, Tensor]:
    """Source ``(B, S)``, decoder input ``(B, T)`` = ``<bos>`` + target without ``<eos>``, and
    decoder output ``(B, T)`` = target with ``<eos>`` (what each position must predict)."""
    src = pad_batch(src_ids)
    tgt_out = pad_batch(tgt_ids)
    tgt_in = pad_batch([t[:-1] for t in tgt_ids], bos_id=BOS)
    return src, tgt_in, tgt_out


def padding_fraction(batches: list[list[int]], src_lengths: list[int], tgt_lengths: list[int]) -> float:
    """Share of batch cells (source and target together) that are padding."""
    real = padded = 0
    for batch in batches:
        for lengths in (src_lengths, tgt_lengths):
            width = max(lengths[i] for i in batch)
            real += sum(lengths[i] for i in batch)
            padded += width * len(batch)
    return 1.0 - real / padded if padded else math.nan
