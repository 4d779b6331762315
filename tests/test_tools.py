"""Profiling and plotting helpers used by the lesson pages."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import subprocess
import sys
import time

import pytest
import torch

from attnlab.plotting import plot_attention
from attnlab.profiling import fastest_time, median_time, peak_memory_bytes


@pytest.mark.parametrize("n", [256, 1024])
def test_peak_memory_counts_an_n_by_n_float32_matrix(n):
    x = torch.randn(n, 8)
    peak = peak_memory_bytes(lambda: x @ x.T, "cpu")
    assert n * n * 4 <= peak < 2 * n * n * 4


def test_peak_memory_sees_two_live_matrices_not_the_sum_of_all():
    x = torch.randn(512, 8)

    def work():
        for _ in range(4):  # each product is freed before the next one
            y = x @ x.T
            z = y * 2
            del y, z

    peak = peak_memory_bytes(work, "cpu")
    assert 2 * 512 * 512 * 4 <= peak < 3 * 512 * 512 * 4


def test_peak_memory_keeps_the_profilers_status_lines_out_of_stderr_and_restores_it():
    code = ("import sys, torch\n"
            "from attnlab.profiling import peak_memory_bytes\n"
            "x = torch.randn(64, 8)\n"
            "print(peak_memory_bytes(lambda: x @ x.T) > 0)\n"
            "print('stderr still works', file=sys.stderr, flush=True)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "True", proc.stderr
    assert "profiler_start" not in proc.stderr and "profiler_stop" not in proc.stderr
    assert "stderr still works" in proc.stderr


def test_median_time_is_positive_and_checks_arguments():
    assert median_time(lambda: torch.randn(64, 64) @ torch.randn(64, 64), repeats=3) > 0
    with pytest.raises(ValueError, match="repeats"):
        median_time(lambda: None, repeats=0)


def test_fastest_time_takes_the_shortest_run_after_the_warm_up():
    def runs():  # the warm-up run sleeps 0 s, then 0.2, 0.02 and 0.1 s
        delays = iter([0.0, 0.2, 0.02, 0.1])
        return lambda: time.sleep(next(delays))

    assert 0.02 <= fastest_time(runs(), repeats=3) < 0.1
    assert 0.1 <= median_time(runs(), repeats=3) < 0.2
    with pytest.raises(ValueError, match="repeats"):
        fastest_time(lambda: None, repeats=0)


def test_plot_attention_draws_the_matrix_with_labels():
    w = torch.softmax(torch.randn(3, 4), dim=-1)
    ax = plot_attention(w, queries=["a", "b", "c"], keys=["w", "x", "y", "z"], title="t")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    image = ax.get_images()[0].get_array()
    assert image.shape == (3, 4)
    assert abs(float(image[1, 2]) - float(w[1, 2])) < 1e-6
    assert len(ax.texts) == 12


def test_plot_attention_rejects_batched_input():
    with pytest.raises(ValueError, match="index a batch"):
        plot_attention(torch.rand(2, 3, 3))
