"""Imported once in tests/cellrun.py's fork server: what every exercise notebook imports first."""

import os

import torch
import torch.nn  # noqa: F401
import torch.nn.functional  # noqa: F401
import torch.testing

# the first assert_close looks for DTensors (imports torch.distributed.tensor and sympy, about a
# second): done here once, not in every notebook process
torch.testing.assert_close(torch.zeros(1), torch.zeros(1))
# chapter 7's setup cell sets this before it imports triton, and triton reads it at import
os.environ["TRITON_INTERPRET"] = "1"
try:
    import triton  # noqa: F401
    import triton.language  # noqa: F401
except ImportError:
    pass
# torch._dynamo: the first call of a function that torch keeps out of compilation (a dispatch mode's, a
# hidden test's watch) imports it, about half a second: done here once, after triton (which dynamo imports, and
# which must see TRITON_INTERPRET first)
import torch._dynamo  # noqa: E402,F401
