"""Chapter 9: from the 2017 decoder to a Llama-style language model.

:mod:`~attnlab.lm.layers` (RMSNorm, SwiGLU), :mod:`~attnlab.lm.attention` (causal GQA with RoPE and a
KV cache), :mod:`~attnlab.lm.model` (the block, the model, the parameter count),
:mod:`~attnlab.lm.generate` (greedy, temperature, top-p), :mod:`~attnlab.lm.train` (corpus, loss,
perplexity, training with the shared loop), :mod:`~attnlab.lm.hf` (weights from Hugging Face's
Llama) and :mod:`~attnlab.lm.cli` (``attnlab-lm``).
"""

from attnlab.lm.attention import CausalSelfAttention, causal_allowed
from attnlab.lm.generate import generate, seconds_per_token
from attnlab.lm.layers import RMSNorm, SwiGLU, swiglu_hidden_width
from attnlab.lm.model import PUBLISHED, DecoderBlock, DecoderLM, LMConfig, kv_bytes_per_token, lm_parameter_count

__all__ = ["PUBLISHED", "CausalSelfAttention", "DecoderBlock", "DecoderLM", "LMConfig", "RMSNorm", "SwiGLU",
           "causal_allowed", "generate", "kv_bytes_per_token", "lm_parameter_count", "seconds_per_token",
           "swiglu_hidden_width"]
