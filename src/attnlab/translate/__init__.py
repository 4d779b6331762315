"""The capstone (chapter 8): the encoder-decoder Transformer trained for German↔English translation.

Modules: :mod:`~attnlab.translate.data` (Multi30k, verified and cached; the embedded corpus),
:mod:`~attnlab.translate.tokens` (BPE, batches by token count), :mod:`~attnlab.translate.train`
(training, checkpoints, DDP), :mod:`~attnlab.translate.decoding` (beam search),
:mod:`~attnlab.translate.evaluation` (sacreBLEU) and :mod:`~attnlab.translate.cli`
(``attnlab-translate``).
"""
