"""Device selection and seeding shared by every chapter."""

from __future__ import annotations

import random

import numpy as np
import torch

_CHOICES = ("auto", "cpu", "cuda", "mps")


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def get_device(prefer: str | torch.device = "auto") -> torch.device:
    """Return the device to compute on.

    ``"auto"`` picks CUDA, then Apple's MPS, then the CPU. Naming a device
    (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``) returns it after checking that
    this machine has it, so a notebook fails at its first cell rather than deep in a
    training loop.
    """
    if isinstance(prefer, torch.device):
        prefer = str(prefer)
    if not isinstance(prefer, str):
        raise TypeError(f"get_device expects a string or torch.device, got {type(prefer).__name__}")
    name = prefer.strip().lower()
    if name == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if _mps_available():
            return torch.device("mps")
        return torch.device("cpu")
    kind = name.split(":", 1)[0]
    if kind not in _CHOICES:
        raise ValueError(
            f"unknown device {prefer!r}: use one of 'auto', 'cpu', 'cuda', 'cuda:N' or 'mps'"
        )
    if kind == "cuda" and not torch.cuda.is_available():
        raise RuntimeError(
            f"device {prefer!r} was requested but this PyTorch build sees no CUDA GPU; "
            "use get_device('auto') to fall back to the CPU"
        )
    if kind == "mps" and not _mps_available():
        raise RuntimeError(
            "device 'mps' was requested but Apple's Metal backend is not available here; "
            "use get_device('auto') to fall back to the CPU"
        )
    return torch.device(name)


def set_seed(seed: int) -> None:
    """Seed Python's ``random``, NumPy and PyTorch (all devices) with ``seed``."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
