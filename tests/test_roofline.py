"""FLOP and byte counts, the roofline, and the device measurements (chapter 7)."""

import pytest
import torch

from attnlab.roofline import (
    attainable_flops,
    attention_costs,
    bound_by,
    ffn_costs,
    matmul_cost,
    measure_bandwidth,
    measure_matmul_flops,
)


def test_matmul_cost_counts_multiply_adds_and_each_matrix_once():
    c = matmul_cost(2, 3, 4, bytes_per_value=2)
    assert c.flops == 48 and c.bytes == 2 * (6 + 12 + 8) and c.intensity == 48 / 52
    with pytest.raises(ValueError):
        matmul_cost(0, 3, 4)


def test_roofline_has_a_ridge_point():
    assert attainable_flops(1.0, 100.0, 10.0) == 10.0
    assert attainable_flops(50.0, 100.0, 10.0) == 100.0
    assert bound_by(9.9, 100.0, 10.0) == "memory" and bound_by(10.0, 100.0, 10.0) == "compute"


def test_softmax_is_memory_bound_and_big_matmuls_are_not():
    ops = {c.name: c for c in attention_costs(2048, 512, 8) + ffn_costs(2048, 512, 2048)}
    assert ops["softmax"].intensity < 1 < 100 < ops["FFN up"].intensity
    # scores Q Kᵀ: intensity ~ Dh / 2 (n^2 outputs written once, 2 Dh FLOPs each)
    assert 20 < ops["scores Q Kᵀ"].intensity < 64 / 2
    with pytest.raises(ValueError):
        attention_costs(8, 10, 3)


def test_device_measurements_are_positive_and_plausible():
    flops = measure_matmul_flops("cpu", size=256, repeats=2)
    bandwidth = measure_bandwidth("cpu", megabytes=16, repeats=2)
    assert 1e8 < flops < 1e14 and 1e8 < bandwidth < 1e13
