"""Pre-training objectives of the three Transformer families (chapter 6) and the tiny models that
train on them: BERT's masked language model (encoder only), GPT's causal language model (decoder
only, with a KV cache) and T5's span corruption (encoder-decoder)."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from attnlab.layers import EncoderLayer, FeedForward, LayerNorm
from attnlab.multihead import MultiHeadAttention
from attnlab.positional import sinusoidal_encoding

IGNORE = -100  # label of positions that do not count in the loss (nn.CrossEntropyLoss's ignore_index)


# start-bert-mask
def bert_mask(tokens: Tensor, mask_id: int, vocab_size: int, mask_prob: float = 0.15,
              special: Tensor | None = None, generator: torch.Generator | None = None) -> tuple[Tensor, Tensor]:
    """BERT's masked-LM corruption: choose ``mask_prob`` of the tokens; of those, 80 % become
    ``[MASK]``, 10 % a random token, 10 % stay as they are. Labels are the original tokens at the
    chosen positions and ``IGNORE`` elsewhere. ``special`` (bool, same shape) is never chosen.

    Shape:
        tokens: ``(B, T)`` -> inputs ``(B, T)``, labels ``(B, T)``
    """
    chosen = torch.rand(tokens.shape, generator=generator) < mask_prob
    if special is not None:
        chosen &= ~special
    action = torch.rand(tokens.shape, generator=generator)  # decides mask / random / keep
    random_tokens = torch.randint(vocab_size, tokens.shape, generator=generator)
    inputs = tokens.clone()
    inputs[chosen & (action < 0.8)] = mask_id
    swap = chosen & (action >= 0.8) & (action < 0.9)
    inputs[swap] = random_tokens[swap]
    labels = tokens.masked_fill(~chosen, IGNORE)
    return inputs, labels
# end-bert-mask


# start-span-corruption
def span_corruption(tokens: list[int], sentinels: list[int], noise_density: float = 0.15, mean_span: float = 3.0,
                    generator: torch.Generator | None = None) -> tuple[list[int], list[int]]:
    """T5's span corruption of one sequence: replace random spans (about ``noise_density`` of the
    tokens, spans of ``mean_span`` on average) by sentinels ``<X>, <Y>, …``; the target lists each
    sentinel followed by the tokens it hid, and a final sentinel.

    Example: ``a b c d e f`` -> input ``a <X> d e <Y>``, target ``<X> b c <Y> f <Z>``.
    """
    n = len(tokens)
    n_noise = max(1, round(n * noise_density))
    n_spans = max(1, min(round(n_noise / mean_span), n_noise, n - n_noise, len(sentinels) - 1))
    if n < 2 or n_noise >= n:
        raise ValueError(f"sequence of {n} tokens is too short to corrupt")

    def split(total: int, parts: int) -> list[int]:  # random composition of `total` into `parts` positive sizes
        cuts = (torch.randperm(total - 1, generator=generator)[: parts - 1] + 1).sort().values.tolist()
        return [b - a for a, b in zip([0] + cuts, cuts + [total])]

    noise_lengths, keep_lengths = split(n_noise, n_spans), split(n - n_noise, n_spans)
    inputs, targets, pos = [], [], 0
    for i, (keep, noise) in enumerate(zip(keep_lengths, noise_lengths)):
        inputs += tokens[pos:pos + keep] + [sentinels[i]]
        pos += keep
        targets += [sentinels[i]] + tokens[pos:pos + noise]
        pos += noise
    return inputs, targets + [sentinels[n_spans]]
# end-span-corruption


# start-decoder-only
class TokenModel(nn.Module):
    """What the tiny language models share: token embeddings scaled by √D plus sinusoidal positions,
    a stack of ``blocks``, a final LayerNorm and a vocabulary head.

    Shape:
        ``embed_tokens(tokens (B, T), offset)`` -> ``(B, T, D)``; ``readout(x (B, T, D))`` -> ``(B, T, V)``
    """

    def __init__(self, vocab_size: int, d_model: int, blocks: list[nn.Module], max_len: int):
        super().__init__()
        self.d_model = d_model
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(blocks)
        self.norm = LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)
        self.register_buffer("positions", sinusoidal_encoding(max_len, d_model), persistent=False)

    def embed_tokens(self, tokens: Tensor, offset: int = 0) -> Tensor:
        """Embeddings of tokens that stand at positions ``offset .. offset + T - 1``."""
        return self.embed(tokens) * math.sqrt(self.d_model) + self.positions[offset:offset + tokens.shape[1]]

    def readout(self, x: Tensor) -> Tensor:
        return self.head(self.norm(x))


class DecoderBlock(nn.Module):
    """Pre-LN block of a decoder-only model: causal self-attention (with optional KV cache) and FFN."""

    def __init__(self, d_model: int, num_heads: int):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, num_heads)
        self.ff = FeedForward(d_model, 4 * d_model)
        self.norm1, self.norm2 = LayerNorm(d_model), LayerNorm(d_model)

    def forward(self, x: Tensor, allowed: Tensor | None, cache: dict | None) -> Tensor:
        x = x + self.attn(self.norm1(x), allowed=allowed, cache=cache)[0]
        return x + self.ff(self.norm2(x))


class TinyDecoderLM(TokenModel):
    """GPT's shape, tiny: token + sinusoidal position embeddings, causal blocks, a vocabulary head.

    ``forward(tokens, cache=[{}...], offset)`` with a cache feeds only the new tokens; the keys and
    values of earlier positions come from the cache (one dict per layer).

    Shape:
        tokens: ``(B, T)`` -> logits ``(B, T, V)``
    """

    def __init__(self, vocab_size: int, d_model: int = 64, num_heads: int = 4, num_layers: int = 2, max_len: int = 256):
        super().__init__(vocab_size, d_model, [DecoderBlock(d_model, num_heads) for _ in range(num_layers)], max_len)

    def forward(self, tokens: Tensor, cache: list[dict] | None = None, offset: int = 0) -> Tensor:
        t = tokens.shape[1]
        x = self.embed_tokens(tokens, offset)
        query_pos = torch.arange(offset, offset + t, device=tokens.device)  # absolute positions of the new tokens
        allowed = torch.arange(offset + t, device=tokens.device)[None, :] <= query_pos[:, None]  # (T, offset+T)
        for i, block in enumerate(self.blocks):
            x = block(x, allowed, None if cache is None else cache[i])
        return self.readout(x)

    @torch.no_grad()
    def generate(self, prompt: Tensor, steps: int, use_cache: bool = True, sample=None) -> Tensor:
        """Extend ``prompt (B, T0)`` by ``steps`` tokens; ``sample(logits (B, V)) -> (B,)`` defaults to argmax."""
        sample = sample or (lambda logits: logits.argmax(-1))
        out = prompt
        cache = [{} for _ in self.blocks] if use_cache else None
        logits = self(prompt, cache, 0)[:, -1]
        for _ in range(steps):
            nxt = sample(logits)
            out = torch.cat([out, nxt[:, None]], dim=1)
            if use_cache:  # one new position; earlier keys and values are reused
                logits = self(nxt[:, None], cache, out.shape[1] - 1)[:, -1]
            else:  # recompute the whole sequence
                logits = self(out)[:, -1]
        return out
# end-decoder-only


class TinyEncoderLM(TokenModel):
    """A bidirectional encoder with a token-prediction head: BERT's shape, tiny.

    Shape:
        tokens: ``(B, T)`` -> logits ``(B, T, V)``
    """

    def __init__(self, vocab_size: int, d_model: int = 64, num_heads: int = 4, num_layers: int = 2, max_len: int = 256):
        layers = [EncoderLayer(d_model, num_heads, 4 * d_model, norm_first=True) for _ in range(num_layers)]
        super().__init__(vocab_size, d_model, layers, max_len)

    def forward(self, tokens: Tensor) -> Tensor:
        x = self.embed_tokens(tokens)
        for layer in self.blocks:
            x = layer(x)  # no mask: every position sees every other
        return self.readout(x)
