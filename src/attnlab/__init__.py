"""attnlab: reference implementations for the course *Attention Is All You Need, built and graded*.

Shape legend used in every docstring and shape comment of the package:

=====  =================================================
``B``  batch size
``T``  target (query) length
``S``  source (key/value) length
``H``  number of attention heads
``D``  model width (``d_model``)
``Dh`` width of one head (``d_k`` or ``d_v``)
``V``  vocabulary size
=====  =================================================

Masks are boolean and ``True`` means "may attend" (the convention of
:func:`torch.nn.functional.scaled_dot_product_attention`).
"""

from attnlab.attention import (
    attention_scores,
    causal_mask,
    combine_masks,
    padding_mask,
    scaled_dot_product_attention,
)
from attnlab.device import get_device, set_seed

__all__ = [
    "attention_scores",
    "causal_mask",
    "combine_masks",
    "get_device",
    "padding_mask",
    "scaled_dot_product_attention",
    "set_seed",
]
__version__ = "0.1.0"
