"""The chapter-6 functions that the lesson pages time on ``device`` create their new tensors on the
input's device and dtype (CPU-only: the 'meta' device and float64 stand in for a GPU)."""

import pytest
import torch

from attnlab import causal_mask
from attnlab.variants import linear_attention as la
from attnlab.variants import objectives, sparse, ssm


def test_selective_ssm_builds_its_parameters_on_the_requested_device():
    layer = ssm.SelectiveSSM(8, state=4, device="meta")
    assert {p.device.type for p in layer.parameters()} == {"meta"}
    out = layer(torch.empty(2, 5, 8, device="meta"))
    assert out.device.type == "meta" and out.shape == (2, 5, 8)


def test_selective_ssm_builds_its_parameters_in_the_requested_dtype():
    torch.manual_seed(0)
    layer = ssm.SelectiveSSM(8, state=4, dtype=torch.float64)
    assert {p.dtype for p in layer.parameters()} == {torch.float64}
    torch.testing.assert_close(layer.log_a[0], torch.log(torch.arange(1.0, 5.0, dtype=torch.float64)))
    assert layer(torch.randn(2, 5, 8, dtype=torch.float64)).dtype == torch.float64


def test_selective_ssm_default_initialisation_is_unchanged():
    torch.manual_seed(0)
    layer = ssm.SelectiveSSM(4, 3)
    torch.manual_seed(0)
    reference = torch.nn.Linear(4, 4)  # the first module that draws random numbers, as before
    assert layer.log_a.dtype == torch.float32 and layer.log_a.device.type == "cpu"
    torch.testing.assert_close(layer.log_a, torch.log(torch.arange(1.0, 4.0)).repeat(4, 1))
    torch.testing.assert_close(layer.to_delta.weight, reference.weight)


def test_selective_scan_state_follows_the_input():
    x = torch.empty(1, 6, 4, device="meta")
    y = ssm.selective_scan(x, x, torch.empty(4, 3, device="meta"), torch.empty(1, 6, 3, device="meta"),
                           torch.empty(1, 6, 3, device="meta"))
    assert y.device.type == "meta" and y.shape == (1, 6, 4)


@pytest.mark.parametrize("window", [0, 3])
def test_sliding_window_attention_builds_its_positions_on_the_input_device(window):
    q = k = v = torch.empty(1, 2, 16, 8, device="meta")
    out = sparse.sliding_window_attention(q, k, v, window)
    assert out.device.type == "meta" and out.shape == (1, 2, 16, 8)
    assert sparse.sliding_window_mask(16, window, device="meta").device.type == "meta"


def test_linear_attention_forms_stay_on_the_input_device():
    q = k = v = torch.empty(2, 32, 8, device="meta")
    w = torch.empty(16, 8, device="meta")
    e = torch.empty(4, 32, device="meta")
    for out in (la.linear_attention(q, k, v), la.causal_linear_attention(q, k, v),
                la.causal_linear_attention_quadratic(q, k, v), la.performer_attention(q, k, v, w),
                la.linformer_attention(q, k, v, e, e)):
        assert out.device.type == "meta" and out.shape == (2, 32, 8)
    assert causal_mask(5, device="meta").device.type == "meta"


def test_decoder_generate_runs_where_the_model_and_prompt_are():
    torch.manual_seed(0)
    model = objectives.TinyDecoderLM(11, d_model=8, num_heads=2, num_layers=1, max_len=16).double()
    prompt = torch.tensor([[1, 2]]).repeat(3, 1)
    cached = model.generate(prompt, 5, use_cache=True)
    plain = model.generate(prompt, 5, use_cache=False)
    assert cached.shape == (3, 7) and torch.equal(cached, plain)
    meta_model = objectives.TinyDecoderLM(11, d_model=8, num_heads=2, num_layers=1, max_len=16).to("meta")
    out = meta_model.generate(prompt.to("meta"), 4, use_cache=True)
    assert out.device.type == "meta" and out.shape == (3, 6)
