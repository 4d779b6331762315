"""The full encoder-decoder Transformer (chapter 5): stacks, embeddings, masks, parity with
:class:`torch.nn.Transformer`, parameter counts and incremental decoding with a key/value cache."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from attnlab.attention import causal_mask
from attnlab.layers import DecoderLayer, EncoderLayer, LayerNorm
from attnlab.positional import sinusoidal_encoding


class EncoderDecoder(nn.Module):
    """Encoder and decoder stacks working on vectors, laid out like :class:`torch.nn.Transformer`.

    Like ``nn.Transformer``, each stack ends with a LayerNorm (for Pre-LN it is needed; for
    Post-LN it is an extra normalisation that the paper does not have).

    Shape:
        src: ``(B, S, D)``, tgt: ``(B, T, D)``; masks are boolean, ``True`` = may attend:
        src_allowed ``(B, 1, S)``, tgt_allowed ``(T, T)`` or ``(B, T, T)``,
        memory_allowed ``(B, 1, S)`` -> ``(B, T, D)``
    """

    def __init__(self, d_model: int = 512, num_heads: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 d_ff: int = 2048, dropout: float = 0.1, activation: str = "relu", norm_first: bool = False,
                 device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        args = (d_model, num_heads, d_ff, dropout, activation, norm_first)
        self.encoder_layers = nn.ModuleList(EncoderLayer(*args, **factory) for _ in range(num_encoder_layers))
        self.decoder_layers = nn.ModuleList(DecoderLayer(*args, **factory) for _ in range(num_decoder_layers))
        self.encoder_norm = LayerNorm(d_model, **factory)
        self.decoder_norm = LayerNorm(d_model, **factory)

    def encode(self, src: Tensor, src_allowed: Tensor | None = None) -> Tensor:
        for layer in self.encoder_layers:
            src = layer(src, src_allowed)
        return self.encoder_norm(src)

    def decode(self, tgt: Tensor, memory: Tensor, tgt_allowed: Tensor | None = None,
               memory_allowed: Tensor | None = None, cache: list[dict] | None = None) -> Tensor:
        for i, layer in enumerate(self.decoder_layers):
            tgt = layer(tgt, memory, tgt_allowed, memory_allowed, None if cache is None else cache[i])
        return self.decoder_norm(tgt)

    def forward(self, src: Tensor, tgt: Tensor, src_allowed: Tensor | None = None, tgt_allowed: Tensor | None = None,
                memory_allowed: Tensor | None = None) -> Tensor:
        return self.decode(tgt, self.encode(src, src_allowed), tgt_allowed, memory_allowed)

    @torch.no_grad()
    def load_torch_weights(self, module: nn.Transformer) -> "EncoderDecoder":
        """Copy every weight of a ``batch_first`` :class:`torch.nn.Transformer` of the same shape."""
        theirs_enc, theirs_dec = module.encoder.layers, module.decoder.layers
        if len(theirs_enc) != len(self.encoder_layers) or len(theirs_dec) != len(self.decoder_layers):
            raise ValueError("the torch module has a different number of encoder or decoder layers")

        def norm(ours: LayerNorm, theirs: nn.LayerNorm):
            ours.weight.copy_(theirs.weight)
            ours.bias.copy_(theirs.bias)

        def ffn(ours, theirs):
            for a, b in ((ours.ff.linear1, theirs.linear1), (ours.ff.linear2, theirs.linear2)):
                a.weight.copy_(b.weight)
                a.bias.copy_(b.bias)

        for ours, theirs in zip(self.encoder_layers, theirs_enc):
            ours.self_attn.load_torch_weights(theirs.self_attn)
            ffn(ours, theirs)
            norm(ours.norm1, theirs.norm1)
            norm(ours.norm2, theirs.norm2)
        for ours, theirs in zip(self.decoder_layers, theirs_dec):
            ours.self_attn.load_torch_weights(theirs.self_attn)
            ours.cross_attn.load_torch_weights(theirs.multihead_attn)
            ffn(ours, theirs)
            norm(ours.norm1, theirs.norm1)
            norm(ours.norm2, theirs.norm2)
            norm(ours.norm3, theirs.norm3)
        norm(self.encoder_norm, module.encoder.norm)
        norm(self.decoder_norm, module.decoder.norm)
        return self


# start-seq2seq
class Seq2SeqTransformer(nn.Module):
    """Token embeddings (scaled by √D) + sinusoidal positions + :class:`EncoderDecoder` + output layer.

    With ``tie_embeddings`` the source embedding, target embedding and output projection share one
    matrix (the paper's setup with a shared vocabulary). Padding is token id ``pad_id``.

    Shape:
        src: ``(B, S)`` and tgt: ``(B, T)`` token ids -> logits ``(B, T, V)``
    """

    def __init__(self, vocab_size: int, d_model: int = 512, num_heads: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, d_ff: int = 2048, dropout: float = 0.1, activation: str = "relu",
                 norm_first: bool = False, tie_embeddings: bool = True, pad_id: int = 0, max_len: int = 1024,
                 device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.d_model, self.pad_id = d_model, pad_id
        self.src_embed = nn.Embedding(vocab_size, d_model, **factory)
        self.tgt_embed = self.src_embed if tie_embeddings else nn.Embedding(vocab_size, d_model, **factory)
        nn.init.normal_(self.src_embed.weight, std=d_model ** -0.5)
        if not tie_embeddings:
            nn.init.normal_(self.tgt_embed.weight, std=d_model ** -0.5)
        self.core = EncoderDecoder(d_model, num_heads, num_encoder_layers, num_decoder_layers, d_ff, dropout,
                                   activation, norm_first, **factory)
        self.generator = nn.Linear(d_model, vocab_size, bias=False, **factory)
        if tie_embeddings:
            self.generator.weight = self.src_embed.weight
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("positions", sinusoidal_encoding(max_len, d_model, **factory), persistent=False)

    def embed(self, tokens: Tensor, table: nn.Embedding, offset: int = 0) -> Tensor:
        t = tokens.shape[1]
        x = table(tokens) * math.sqrt(self.d_model) + self.positions[offset:offset + t]  # (B, T, D)
        return self.dropout(x)

    def masks(self, src: Tensor, tgt: Tensor) -> tuple[Tensor, Tensor]:
        """Source key-padding mask ``(B, 1, S)`` and target causal-and-padding mask ``(B, T, T)``."""
        src_allowed = (src != self.pad_id)[:, None, :]  # (B, S) -> (B, 1, S)
        tgt_pad = (tgt != self.pad_id)[:, None, :]  # (B, 1, T)
        tgt_allowed = tgt_pad & causal_mask(tgt.shape[1], device=tgt.device)  # (B, 1, T) & (T, T) -> (B, T, T)
        return src_allowed, tgt_allowed

    def encode(self, src: Tensor) -> tuple[Tensor, Tensor]:
        src_allowed = (src != self.pad_id)[:, None, :]
        return self.core.encode(self.embed(src, self.src_embed), src_allowed), src_allowed

    def forward(self, src: Tensor, tgt: Tensor) -> Tensor:
        src_allowed, tgt_allowed = self.masks(src, tgt)
        memory = self.core.encode(self.embed(src, self.src_embed), src_allowed)
        out = self.core.decode(self.embed(tgt, self.tgt_embed), memory, tgt_allowed, src_allowed)
        return self.generator(out)  # (B, T, D) @ (D, V) -> (B, T, V)
# end-seq2seq

    # start-greedy
    @torch.no_grad()
    def greedy_decode(self, src: Tensor, bos_id: int, eos_id: int, max_len: int, use_cache: bool = True) -> Tensor:
        """Greedy decoding; with ``use_cache`` each step feeds only the newest token to the decoder.

        Shape:
            src: ``(B, S)`` -> ``(B, <= max_len + 1)`` starting with ``bos_id``
        """
        memory, src_allowed = self.encode(src)
        out = torch.full((src.shape[0], 1), bos_id, dtype=torch.long, device=src.device)
        cache = [{} for _ in self.core.decoder_layers] if use_cache else None
        done = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)
        for step in range(max_len):
            if use_cache:  # only the newest position; earlier keys and values come from the cache
                x = self.embed(out[:, -1:], self.tgt_embed, offset=step)
                h = self.core.decode(x, memory, None, src_allowed, cache)[:, -1]
            else:  # recompute the whole prefix
                allowed = causal_mask(out.shape[1], device=src.device)
                h = self.core.decode(self.embed(out, self.tgt_embed), memory, allowed, src_allowed)[:, -1]
            next_token = self.generator(h).argmax(-1).masked_fill(done, self.pad_id)
            out = torch.cat([out, next_token[:, None]], dim=1)
            done |= next_token == eos_id
            if done.all():
                break
        return out
    # end-greedy


def transformer_parameter_count(vocab_size: int, d_model: int, num_heads: int, num_encoder_layers: int,
                                num_decoder_layers: int, d_ff: int, tie_embeddings: bool = True) -> int:
    """Parameters of :class:`Seq2SeqTransformer`, by formula (the number of heads does not matter)."""
    attention = 4 * d_model * d_model + 4 * d_model
    ffn = 2 * d_model * d_ff + d_ff + d_model
    norm = 2 * d_model
    encoder = num_encoder_layers * (attention + ffn + 2 * norm)
    decoder = num_decoder_layers * (2 * attention + ffn + 3 * norm)
    embeddings = vocab_size * d_model * (1 if tie_embeddings else 3)
    return embeddings + encoder + decoder + 2 * norm
