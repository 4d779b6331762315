"""Measure what a computation costs on the current device: wall time and peak extra memory."""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import time
from typing import Callable

import torch


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


def _wall_times(fn: Callable[[], object], device: torch.device | str, repeats: int, warmup: int) -> list[float]:
    if repeats < 1 or warmup < 0:
        raise ValueError(f"need repeats >= 1 and warmup >= 0, got repeats={repeats}, warmup={warmup}")
    device = torch.device(device)
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        _sync(device)
        start = time.perf_counter()
        fn()
        _sync(device)
        times.append(time.perf_counter() - start)
    return times


def median_time(fn: Callable[[], object], device: torch.device | str = "cpu", repeats: int = 5, warmup: int = 1) -> float:
    """Median wall time of ``fn()`` in seconds over ``repeats`` runs, after ``warmup`` runs.

    GPU work is synchronised before and after each run, so the time covers the kernels, not only
    their launch.
    """
    return statistics.median(_wall_times(fn, device, repeats, warmup))


def fastest_time(fn: Callable[[], object], device: torch.device | str = "cpu", repeats: int = 5, warmup: int = 1) -> float:
    """Shortest wall time of ``fn()`` in seconds over ``repeats`` runs, after ``warmup`` runs.

    On a machine that other work shares, the fastest run is the one least disturbed by it, so it
    is the steadiest estimate of what the computation itself costs. Synchronised like
    :func:`median_time`.
    """
    return min(_wall_times(fn, device, repeats, warmup))


@contextlib.contextmanager
def _without_native_stderr():
    """Silence file descriptor 2 for the block: the profiler's native library prints a status line
    ("profiler_start", "profiler_stop") on every run, which would clutter every page that measures
    memory. Whatever else is written to descriptor 2 during the block is dropped too; exceptions
    still propagate."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no file descriptor 2 (some embedded interpreters): nothing to silence
        yield
        return
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def peak_memory_bytes(fn: Callable[[], object], device: torch.device | str = "cpu") -> int:
    """Peak memory, in bytes, that ``fn()`` allocates on ``device`` beyond what was already in use.

    On CUDA this is the allocator's own peak counter. On the CPU it replays the allocations and
    frees that :mod:`torch.profiler` records for each operator, in time order, and returns the
    highest running total. (MPS is not supported.)
    """
    device = torch.device(device)
    if device.type == "cuda":
        _sync(device)
        base = torch.cuda.memory_allocated(device)
        torch.cuda.reset_peak_memory_stats(device)
        fn()
        _sync(device)
        return max(0, torch.cuda.max_memory_allocated(device) - base)
    if device.type != "cpu":
        raise ValueError(f"peak_memory_bytes measures 'cpu' and 'cuda' devices, not {device.type!r}")
    from torch.profiler import ProfilerActivity, profile

    with _without_native_stderr(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    changes = sorted(
        (e.time_range.start, e.self_cpu_memory_usage) for e in prof.events() if e.self_cpu_memory_usage
    )
    running = peak = 0
    for _, delta in changes:
        running += delta
        peak = max(peak, running)
    return peak
