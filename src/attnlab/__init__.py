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

# The names below are loaded on first use (PEP 562), not at ``import attnlab``: the instructor
# tools (``attnlab-course``, the grading processes, nbgrader's configuration) import the package
# but never touch torch, and importing torch costs about two seconds of CPU in every such process.
_LAZY = {
    "attention_scores": "attnlab.attention",
    "causal_mask": "attnlab.attention",
    "combine_masks": "attnlab.attention",
    "padding_mask": "attnlab.attention",
    "scaled_dot_product_attention": "attnlab.attention",
    "get_device": "attnlab.device",
    "set_seed": "attnlab.device",
}
__all__ = sorted(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'attnlab' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"
