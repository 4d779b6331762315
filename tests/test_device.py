"""get_device and set_seed."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from attnlab import get_device, set_seed


def test_auto_picks_cuda_then_mps_then_cpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert get_device("auto") == torch.device("cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr("attnlab.device._mps_available", lambda: True)
    assert get_device("auto") == torch.device("mps")
    monkeypatch.setattr("attnlab.device._mps_available", lambda: False)
    assert get_device() == torch.device("cpu")


def test_explicit_cpu_and_device_objects():
    assert get_device("cpu") == torch.device("cpu")
    assert get_device(torch.device("cpu")) == torch.device("cpu")


def test_missing_cuda_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="no CUDA GPU"):
        get_device("cuda:0")


def test_unknown_device_name_is_rejected():
    with pytest.raises(ValueError, match="unknown device"):
        get_device("tpu")


def test_set_seed_makes_random_numpy_and_torch_repeat():
    set_seed(123)
    first = (random.random(), np.random.rand(), torch.rand(3))
    set_seed(123)
    second = (random.random(), np.random.rand(), torch.rand(3))
    assert first[0] == second[0] and first[1] == second[1]
    assert torch.equal(first[2], second[2])


@pytest.mark.parametrize("bad", [-1, 1.5, "7", True])
def test_set_seed_rejects_non_integers(bad):
    with pytest.raises(ValueError, match="non-negative int"):
        set_seed(bad)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_attention_runs_on_cuda_and_matches_cpu():
    from attnlab import scaled_dot_product_attention

    set_seed(0)
    q, k, v = (torch.randn(2, 4, 16, 32) for _ in range(3))
    cpu, _ = scaled_dot_product_attention(q, k, v)
    gpu, _ = scaled_dot_product_attention(q.cuda(), k.cuda(), v.cuda())
    torch.testing.assert_close(gpu.cpu(), cpu, rtol=1e-4, atol=1e-5)
