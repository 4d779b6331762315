"""Weights across to and from Hugging Face ``transformers``' ``LlamaForCausalLM`` (chapter 9's parity check).

Nothing here imports ``transformers``: the functions translate configurations and state-dict
keys, so the package does not depend on it (the tests do).
"""

from __future__ import annotations

import torch
from torch import Tensor

from attnlab.lm.model import DecoderLM, LMConfig
from attnlab.positional import rope_half_permutation


def llama_config_kwargs(config: LMConfig) -> dict:
    """Keyword arguments of ``transformers.LlamaConfig`` for the same architecture (Llama-style only)."""
    llama_like = (config.norm == "rmsnorm" and config.norm_first and config.ffn == "swiglu"
                  and config.position == "rope" and not config.bias)
    if not llama_like:
        raise ValueError("only a Llama-style LMConfig (rmsnorm, norm_first, swiglu, rope, bias=False) has a LlamaConfig")
    return dict(vocab_size=config.vocab_size, hidden_size=config.d_model, intermediate_size=config.hidden,
                num_hidden_layers=config.num_layers, num_attention_heads=config.num_heads,
                num_key_value_heads=config.kv_heads, head_dim=config.head_dim, hidden_act="silu",
                rms_norm_eps=config.norm_eps, rope_theta=config.rope_base, tie_word_embeddings=config.tie_embeddings,
                attention_bias=False, mlp_bias=False, max_position_embeddings=config.max_len)


# start-hf-keys
def hf_key(ours: str) -> str:
    """The name of one of our parameters in ``LlamaForCausalLM``'s state dict."""
    renames = {"embed.": "model.embed_tokens.", "norm.": "model.norm.", "lm_head.": "lm_head."}
    for a, b in renames.items():
        if ours.startswith(a):
            return b + ours[len(a):]
    parts = {"attn_norm": "input_layernorm", "ffn_norm": "post_attention_layernorm", "attn.out_proj": "self_attn.o_proj",
             "attn.q_proj": "self_attn.q_proj", "attn.k_proj": "self_attn.k_proj", "attn.v_proj": "self_attn.v_proj",
             "ffn.w1": "mlp.gate_proj", "ffn.w3": "mlp.up_proj", "ffn.w2": "mlp.down_proj"}
    block, rest = ours.removeprefix("blocks.").split(".", 1)
    for a, b in parts.items():
        if rest.startswith(a + "."):
            return f"model.layers.{block}.{b}{rest[len(a):]}"
    raise KeyError(f"no Llama name for parameter {ours!r}")
# end-hf-keys


def _permute_heads(weight: Tensor, heads: int, head_dim: int) -> Tensor:
    """Reorder each head's rows of a query/key projection from the half-split to the adjacent layout."""
    perm = rope_half_permutation(head_dim)
    inverse = torch.empty_like(perm)
    inverse[perm] = torch.arange(head_dim)
    return weight.reshape(heads, head_dim, -1)[:, inverse].reshape(weight.shape)


@torch.no_grad()
def load_llama_state_dict(model: DecoderLM, state: dict[str, Tensor]) -> DecoderLM:
    """Copy a ``LlamaForCausalLM`` state dict into ``model`` (same shapes). For ``rope_pairing="adjacent"``
    the query and key rows of each head are permuted, as Meta's checkpoints differ from Hugging Face's."""
    config = model.config
    for name, param in model.named_parameters():
        source = state[hf_key(name)]
        if config.rope_pairing == "adjacent" and (".attn.q_proj." in name or ".attn.k_proj." in name):
            heads = config.num_heads if ".q_proj." in name else config.kv_heads
            source = _permute_heads(source, heads, config.head_dim)
        if source.shape != param.shape:
            raise ValueError(f"{name}: shape {tuple(param.shape)} here, {tuple(source.shape)} in the Llama state dict")
        param.copy_(source)
    return model
