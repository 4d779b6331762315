"""Chapter 6: the variants that came after the 2017 Transformer.

One module per idea: :mod:`~attnlab.variants.objectives` (BERT, GPT and T5 training objectives and
tiny models), :mod:`~attnlab.variants.sampling` (temperature, top-k, top-p, KV-cached generation),
:mod:`~attnlab.variants.gqa` (multi-query and grouped-query attention),
:mod:`~attnlab.variants.sparse` (sparse attention patterns, MoBA-style block selection),
:mod:`~attnlab.variants.linear_attention` (Linformer, Performer, linear transformer),
:mod:`~attnlab.variants.vision` (ViT patches, Swin windows), :mod:`~attnlab.variants.moe`
(mixture of experts), :mod:`~attnlab.variants.speculative` (speculative decoding) and
:mod:`~attnlab.variants.ssm` (a toy selective state-space scan).
"""
