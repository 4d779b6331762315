"""A decoder-only language model that spans 2017 to Llama (chapter 9).

:class:`LMConfig` switches each change separately, so one class is the 2017 decoder (Post-LN,
LayerNorm, ReLU, sinusoidal positions, biases), a Llama-style model (Pre-LN, RMSNorm, SwiGLU,
RoPE, grouped-query attention, no biases) and every step between; ``experiments/modern_lm.py``
trains each step of that ladder.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from attnlab.kvcache import KVCache
from attnlab.layers import FeedForward, LayerNorm
from attnlab.lm.attention import CausalSelfAttention
from attnlab.lm.layers import RMSNorm, SwiGLU, swiglu_hidden_width
from attnlab.positional import sinusoidal_encoding


# start-config
@dataclass(frozen=True)
class LMConfig:
    """The architecture of :class:`DecoderLM`. The defaults are a small Llama-style model."""

    vocab_size: int
    d_model: int = 128  # model width D
    num_layers: int = 4  # decoder blocks
    num_heads: int = 4  # query heads H
    num_kv_heads: int | None = None  # key/value heads G (None: G = H, multi-head attention)
    ffn_hidden: int | None = None  # FFN width F (None: 4·D for ReLU, Llama's rounding of 8/3·D for SwiGLU)
    multiple_of: int = 32  # SwiGLU's width is rounded up to a multiple of this
    norm: str = "rmsnorm"  # "rmsnorm" or "layernorm"
    norm_first: bool = True  # Pre-LN (True) or the 2017 Post-LN (False)
    ffn: str = "swiglu"  # "swiglu" or "relu"
    position: str = "rope"  # "rope" (rotations inside attention) or "sinusoidal" (added to the embeddings)
    bias: bool = False  # biases in the attention and FFN projections
    tie_embeddings: bool = True  # the output layer reuses the token embedding matrix
    rope_base: float = 10000.0  # RoPE's base (Llama 3: 500000)
    rope_pairing: str = "half"  # "half" (Hugging Face's rotate_half) or "adjacent" pairs
    norm_eps: float = 1e-6  # epsilon of the norms
    dropout: float = 0.0  # dropout after attention and FFN (and on the embeddings)
    max_len: int = 1024  # longest sequence the sinusoidal table covers

    def __post_init__(self):
        checks = {"norm": ("rmsnorm", "layernorm"), "ffn": ("swiglu", "relu"), "position": ("rope", "sinusoidal"),
                  "rope_pairing": ("half", "adjacent")}
        for name, allowed in checks.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")
        if self.d_model % self.num_heads:
            raise ValueError(f"d_model={self.d_model} is not divisible by num_heads={self.num_heads}")
        if self.num_heads % self.kv_heads:
            raise ValueError(f"num_heads={self.num_heads} is not a multiple of num_kv_heads={self.num_kv_heads}")

    @property
    def kv_heads(self) -> int:
        return self.num_kv_heads or self.num_heads

    @property
    def head_dim(self) -> int:
        return self.d_model // self.num_heads

    @property
    def hidden(self) -> int:
        """The FFN width actually used."""
        if self.ffn_hidden is not None:
            return self.ffn_hidden
        return 4 * self.d_model if self.ffn == "relu" else swiglu_hidden_width(self.d_model, self.multiple_of)
# end-config


def make_norm(config: LMConfig, device=None, dtype=None) -> nn.Module:
    if config.norm == "rmsnorm":
        return RMSNorm(config.d_model, config.norm_eps, device=device, dtype=dtype)
    return LayerNorm(config.d_model, config.norm_eps, device=device, dtype=dtype)


# start-block
class DecoderBlock(nn.Module):
    """Causal self-attention and a feed-forward network, each in a residual connection.

    Pre-LN (``norm_first``, Llama): ``x = x + attn(norm(x))``, ``x = x + ffn(norm(x))``.
    Post-LN (2017): ``x = norm(x + attn(x))``, ``x = norm(x + ffn(x))``.

    Shape:
        x: ``(B, T, D)`` -> ``(B, T, D)``
    """

    def __init__(self, config: LMConfig, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.norm_first = config.norm_first
        self.attn_norm, self.ffn_norm = make_norm(config, **factory), make_norm(config, **factory)
        self.attn = CausalSelfAttention(config.d_model, config.num_heads, config.kv_heads, config.bias,
                                        config.position == "rope", config.rope_base, config.rope_pairing, **factory)
        if config.ffn == "swiglu":
            self.ffn = SwiGLU(config.d_model, config.hidden, config.bias, **factory)
        else:
            self.ffn = FeedForward(config.d_model, config.hidden, 0.0, "relu", **factory)
            if not config.bias:
                self.ffn.linear1.bias, self.ffn.linear2.bias = None, None
        self.drop = nn.Dropout(config.dropout)

    def forward(self, x: Tensor, cache: KVCache | None = None) -> Tensor:
        if self.norm_first:
            x = x + self.drop(self.attn(self.attn_norm(x), cache))
            return x + self.drop(self.ffn(self.ffn_norm(x)))
        x = self.attn_norm(x + self.drop(self.attn(x, cache)))
        return self.ffn_norm(x + self.drop(self.ffn(x)))
# end-block


# start-lm
class DecoderLM(nn.Module):
    """Token embeddings, ``num_layers`` :class:`DecoderBlock`, a final norm (Pre-LN only) and the output layer.

    With ``position="sinusoidal"`` the embeddings are scaled by ``√D`` and the 2017 table is added;
    with RoPE nothing is added (the positions enter every attention layer). ``cache`` is a list of
    one :class:`attnlab.kvcache.KVCache` per block (see :meth:`new_cache`); with it, ``tokens``
    continue the cached sequence.

    Shape:
        tokens: ``(B, T)`` -> logits ``(B, T, V)``
    """

    def __init__(self, config: LMConfig, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_model, **factory)
        nn.init.normal_(self.embed.weight, std=config.d_model ** -0.5)
        self.blocks = nn.ModuleList(DecoderBlock(config, **factory) for _ in range(config.num_layers))
        self.norm = make_norm(config, **factory) if config.norm_first else nn.Identity()
        self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False, **factory)
        if config.tie_embeddings:
            self.lm_head.weight = self.embed.weight
        self.drop = nn.Dropout(config.dropout)
        if config.position == "sinusoidal":
            table = sinusoidal_encoding(config.max_len, config.d_model, device=device, dtype=dtype)
            self.register_buffer("positions", table, persistent=False)

    def new_cache(self) -> list[KVCache]:
        return [KVCache() for _ in self.blocks]

    def forward(self, tokens: Tensor, cache: list[KVCache] | None = None) -> Tensor:
        x = self.embed(tokens)  # (B, T) -> (B, T, D)
        if self.config.position == "sinusoidal":
            past, t = (0 if cache is None else len(cache[0])), tokens.shape[1]
            if past + t > self.config.max_len:
                raise ValueError(f"sequence of {past + t} tokens is longer than max_len={self.config.max_len}")
            x = x * math.sqrt(self.config.d_model) + self.positions[past:past + t]  # (B, T, D) + (T, D)
        x = self.drop(x)
        for i, block in enumerate(self.blocks):
            x = block(x, None if cache is None else cache[i])
        return self.lm_head(self.norm(x))  # (B, T, D) @ (D, V) -> (B, T, V)
# end-lm


# start-count
def lm_parameter_count(config: LMConfig) -> int:
    """Parameters of :class:`DecoderLM`, by formula.

    Per block: queries and output ``2·D·D``, keys and values ``2·D·G·Dh``, the FFN ``3·D·F`` (SwiGLU)
    or ``2·D·F`` (ReLU), biases if any, and two norms (``D`` each for RMSNorm, ``2D`` for LayerNorm).
    Then the embedding ``V·D`` (twice if untied) and the final norm (Pre-LN).
    """
    d, f, kv = config.d_model, config.hidden, config.kv_heads * config.head_dim
    norm = d if config.norm == "rmsnorm" else 2 * d
    attention = 2 * d * d + 2 * d * kv + ((2 * d + 2 * kv) if config.bias else 0)
    ffn = (3 if config.ffn == "swiglu" else 2) * d * f
    if config.bias:
        ffn += (2 * f if config.ffn == "swiglu" else f) + d
    embeddings = config.vocab_size * d * (1 if config.tie_embeddings else 2)
    return config.num_layers * (attention + ffn + 2 * norm) + embeddings + (norm if config.norm_first else 0)


# Published configurations (the released config.json files) and the parameter counts their model
# pages give; lm_parameter_count reproduces each to the digits shown.
PUBLISHED = {
    "Llama 2 7B": (LMConfig(32000, 4096, 32, 32, 32, ffn_hidden=11008, tie_embeddings=False), "6.74B"),
    "Llama 3 8B": (LMConfig(128256, 4096, 32, 32, 8, ffn_hidden=14336, tie_embeddings=False, rope_base=500000.0), "8.03B"),
    "Mistral 7B": (LMConfig(32000, 4096, 32, 32, 8, ffn_hidden=14336, tie_embeddings=False), "7.24B"),
    "TinyLlama 1.1B": (LMConfig(32000, 2048, 22, 32, 4, ffn_hidden=5632, tie_embeddings=False), "1.1B"),
}
# end-count


def kv_bytes_per_token(config: LMConfig, bytes_per_value: int = 4) -> int:
    """Bytes the KV cache grows by per generated token: keys and values of every block's ``G`` heads."""
    return 2 * config.num_layers * config.kv_heads * config.head_dim * bytes_per_value
