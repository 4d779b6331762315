"""The package's multi-head attention against torch.nn.MultiheadAttention and the cost formulas."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from attnlab import causal_mask, combine_masks, padding_mask, set_seed
from attnlab.multihead import MultiHeadAttention, merge_heads, mha_macs, mha_parameter_count, split_heads

TOL = {torch.float32: dict(rtol=1e-5, atol=1e-6), torch.float64: dict(rtol=1e-10, atol=1e-12)}


def pair(d, h, dtype=torch.float32, bias=True):
    theirs = nn.MultiheadAttention(d, h, batch_first=True, bias=bias, dtype=dtype)
    ours = MultiHeadAttention(d, h, bias=bias, dtype=dtype).load_torch_weights(theirs)
    return ours, theirs


def test_split_then_merge_is_identity_and_heads_are_column_blocks():
    set_seed(0)
    x = torch.randn(2, 5, 12)
    heads = split_heads(x, 3)
    assert heads.shape == (2, 3, 5, 4)
    for i in range(3):
        assert torch.equal(heads[:, i], x[..., 4 * i:4 * (i + 1)])
    assert torch.equal(merge_heads(heads), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("seed", range(4))
def test_self_attention_matches_nn_multiheadattention(dtype, seed):
    set_seed(seed)
    g = torch.Generator().manual_seed(seed)
    h = [1, 2, 4, 8][seed]
    d = h * int(torch.randint(1, 6, (1,), generator=g))
    b, t = (int(v) for v in torch.randint(1, 7, (2,), generator=g))
    ours, theirs = pair(d, h, dtype)
    x = torch.randn(b, t, d, dtype=dtype)
    out, w = ours(x, need_weights=True)
    ref_out, ref_w = theirs(x, x, x, average_attn_weights=False)
    torch.testing.assert_close(out, ref_out, **TOL[dtype])
    torch.testing.assert_close(w, ref_w, **TOL[dtype])
    fast, none = ours(x)
    assert none is None
    torch.testing.assert_close(fast, ref_out, **TOL[dtype])


@pytest.mark.parametrize("need_weights", [True, False])
def test_causal_and_padding_masks_match_torch_conventions(need_weights):
    set_seed(1)
    ours, theirs = pair(16, 4)
    x, memory = torch.randn(3, 5, 16), torch.randn(3, 7, 16)
    causal = causal_mask(5)
    out, _ = ours(x, allowed=causal, need_weights=need_weights)
    torch.testing.assert_close(out, theirs(x, x, x, attn_mask=~causal)[0], rtol=1e-5, atol=1e-6)
    pad = padding_mask(torch.tensor([7, 4, 1]), 7)
    out, _ = ours(x, memory, combine_masks(pad), need_weights=need_weights)
    torch.testing.assert_close(out, theirs(x, memory, memory, key_padding_mask=~pad)[0], rtol=1e-5, atol=1e-6)


def test_gradients_match_torch():
    set_seed(2)
    ours, theirs = pair(12, 3, torch.float64)
    x = torch.randn(2, 4, 12, dtype=torch.float64)
    ours(x, allowed=causal_mask(4))[0].pow(2).sum().backward()
    theirs(x, x, x, attn_mask=~causal_mask(4))[0].pow(2).sum().backward()
    torch.testing.assert_close(ours.in_proj.weight.grad, theirs.in_proj_weight.grad)
    torch.testing.assert_close(ours.out_proj.weight.grad, theirs.out_proj.weight.grad)


def test_without_bias_matches_torch():
    set_seed(3)
    ours, theirs = pair(8, 2, bias=False)
    x = torch.randn(1, 3, 8)
    torch.testing.assert_close(ours(x)[0], theirs(x, x, x)[0], rtol=1e-5, atol=1e-6)


def test_source_with_no_real_tokens_gives_zero_attention_on_both_paths():
    set_seed(4)
    ours, _ = pair(8, 2)
    x, memory = torch.randn(2, 3, 8), torch.randn(2, 4, 8)
    allowed = combine_masks(padding_mask(torch.tensor([4, 0]), 4))
    for need_weights in (True, False):
        out, _ = ours(x, memory, allowed, need_weights=need_weights)
        assert torch.isfinite(out).all()
        # no attention output means the layer returns only the output projection's bias
        torch.testing.assert_close(out[1], ours.out_proj.bias.expand(3, 8))


def test_parameter_count_formula_matches_the_module_and_ignores_heads():
    for d, h in [(768, 12), (64, 1), (64, 64)]:
        assert mha_parameter_count(d) == sum(p.numel() for p in MultiHeadAttention(d, h).parameters())
    assert mha_parameter_count(768) == 2_362_368
    assert mha_parameter_count(8, bias=False) == sum(p.numel() for p in MultiHeadAttention(8, 2, bias=False).parameters())


@pytest.mark.parametrize("t, s", [(16, 16), (8, 24)])
def test_mac_formula_matches_torch_flop_counter(t, s):
    layer = MultiHeadAttention(32, 4)
    memory = None if t == s else torch.randn(1, s, 32)
    with FlopCounterMode(display=False) as counter:
        layer(torch.randn(1, t, 32), memory, need_weights=True)
    assert counter.get_total_flops() == 2 * mha_macs(t, 32, s)["total"]


def test_seed_exercise_numbers():
    macs = mha_macs(512, 768)
    assert macs["projections"] == 4 * 512 * 768**2
    assert macs["total"] == 1_610_612_736


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: MultiHeadAttention(10, 4), ValueError, "not divisible"),
        (lambda: split_heads(torch.zeros(1, 2, 5), 2), ValueError, "not divisible"),
        (lambda: MultiHeadAttention(8, 2)(torch.zeros(1, 3, 8), allowed=torch.ones(3, 3)), TypeError, "boolean"),
        (lambda: MultiHeadAttention(8, 2)(torch.zeros(1, 3, 8), allowed=torch.ones(3, dtype=torch.bool)), ValueError, "combine_masks"),
        (lambda: MultiHeadAttention(8, 2).load_torch_weights(nn.MultiheadAttention(8, 4)), ValueError, "num_heads"),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()
