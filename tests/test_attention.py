"""The package's scaled dot-product attention and masks against PyTorch and hand arithmetic."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from attnlab import attention_scores, causal_mask, combine_masks, padding_mask, scaled_dot_product_attention, set_seed

TOL = {torch.float32: dict(rtol=1e-5, atol=1e-6), torch.float64: dict(rtol=1e-12, atol=1e-12)}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("seed", range(6))
def test_sdpa_matches_torch_reference(dtype, seed):
    set_seed(seed)
    g = torch.Generator().manual_seed(seed)
    lead = tuple(int(x) for x in torch.randint(1, 4, (int(torch.randint(0, 3, (1,), generator=g)),), generator=g))
    t, s, dk, dv = (int(x) for x in torch.randint(1, 12, (4,), generator=g))
    q = torch.randn(*lead, t, dk, dtype=dtype)
    k = torch.randn(*lead, s, dk, dtype=dtype)
    v = torch.randn(*lead, s, dv, dtype=dtype)
    ours, weights = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(ours, F.scaled_dot_product_attention(q, k, v), **TOL[dtype])
    assert weights.shape == (*lead, t, s)
    torch.testing.assert_close(weights.sum(-1), torch.ones(*lead, t, dtype=dtype), **TOL[dtype])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("seed", range(6))
def test_masked_sdpa_matches_torch_reference(dtype, seed):
    set_seed(100 + seed)
    b, h, t, s, d = 2, 3, 5, 7, 8
    q, k, v = (torch.randn(b, h, n, d, dtype=dtype) for n in (t, s, s))
    allowed = torch.rand(b, 1, t, s) < 0.6
    allowed[..., 0] = True  # PyTorch < 2.5 returned NaN for empty rows; those are tested separately
    ours, weights = scaled_dot_product_attention(q, k, v, allowed)
    theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    torch.testing.assert_close(ours, theirs, **TOL[dtype])
    assert (weights.masked_select(~allowed.expand_as(weights)) == 0).all()


def test_sdpa_with_custom_scale_matches_torch():
    set_seed(3)
    q, k, v = torch.randn(2, 4, 6), torch.randn(2, 5, 6), torch.randn(2, 5, 3)
    ours, _ = scaled_dot_product_attention(q, k, v, scale=0.3)
    torch.testing.assert_close(ours, F.scaled_dot_product_attention(q, k, v, scale=0.3))


def test_scores_are_divided_by_sqrt_dk():
    q = torch.tensor([[2.0, 0.0, 0.0, 0.0]])
    k = torch.tensor([[3.0, 0.0, 0.0, 0.0]])
    assert attention_scores(q, k).item() == pytest.approx(6.0 / math.sqrt(4))
    assert attention_scores(q, k, scale=1.0).item() == pytest.approx(6.0)


def test_softmax_runs_over_keys_not_queries():
    set_seed(4)
    _, w = scaled_dot_product_attention(torch.randn(3, 6, 4), torch.randn(3, 2, 4), torch.randn(3, 2, 4))
    torch.testing.assert_close(w.sum(dim=-1), torch.ones(3, 6))


def test_fully_masked_row_gives_zero_weights_output_and_gradients():
    set_seed(5)
    q = torch.randn(2, 3, 4, requires_grad=True)
    k = torch.randn(2, 5, 4, requires_grad=True)
    v = torch.randn(2, 5, 4, requires_grad=True)
    allowed = torch.ones(2, 3, 5, dtype=torch.bool)
    allowed[1, 2] = False
    out, w = scaled_dot_product_attention(q, k, v, allowed)
    assert torch.isfinite(out).all() and torch.isfinite(w).all()
    assert (w[1, 2] == 0).all() and (out[1, 2] == 0).all()
    torch.testing.assert_close(w[0].sum(-1), torch.ones(3))
    out.sum().backward()
    for t in (q, k, v):
        assert torch.isfinite(t.grad).all()
    assert (q.grad[1, 2] == 0).all()


def test_fully_masked_row_matches_current_torch_behaviour():
    set_seed(6)
    q, k, v = torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 4)
    allowed = torch.tensor([[True, False, True], [False, False, False]])
    theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    if torch.isnan(theirs).any():
        pytest.skip(f"torch {torch.__version__} returns NaN for empty rows (changed in 2.5)")
    torch.testing.assert_close(scaled_dot_product_attention(q, k, v, allowed)[0], theirs)


def test_causal_mask_blocks_future_positions():
    m = causal_mask(4)
    assert m.dtype == torch.bool and m.shape == (4, 4)
    for i in range(4):
        for j in range(4):
            assert bool(m[i, j]) == (j <= i)
    set_seed(7)
    q, k, v = torch.randn(1, 4, 8), torch.randn(1, 4, 8), torch.randn(1, 4, 8)
    out, _ = scaled_dot_product_attention(q, k, v, m)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, is_causal=True))
    # changing a future value must not change earlier outputs
    v2 = v.clone()
    v2[0, 3] += 100
    out2, _ = scaled_dot_product_attention(q, k, v2, m)
    torch.testing.assert_close(out[0, :3], out2[0, :3])


def test_rectangular_causal_mask_is_top_left_aligned_like_torch():
    set_seed(8)
    q, k, v = torch.randn(1, 3, 4), torch.randn(1, 5, 4), torch.randn(1, 5, 4)
    out, _ = scaled_dot_product_attention(q, k, v, causal_mask(3, 5))
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, is_causal=True))


def test_padding_mask_marks_real_tokens():
    m = padding_mask(torch.tensor([2, 0, 4]), 5)
    assert m.dtype == torch.bool
    assert m.tolist() == [
        [True, True, False, False, False],
        [False] * 5,
        [True, True, True, True, False],
    ]
    assert padding_mask(torch.tensor([1, 3])).shape == (2, 3)


def test_padding_masked_keys_do_not_change_the_output():
    set_seed(9)
    q, k, v = torch.randn(1, 2, 4), torch.randn(1, 5, 4), torch.randn(1, 5, 4)
    allowed = combine_masks(padding_mask(torch.tensor([3]), 5))
    out, _ = scaled_dot_product_attention(q, k, v, allowed)
    k2, v2 = k.clone(), v.clone()
    k2[0, 3:] = 1e3 * torch.randn(2, 4)
    v2[0, 3:] = 1e3
    out2, _ = scaled_dot_product_attention(q, k2, v2, allowed)
    torch.testing.assert_close(out, out2)
    short, _ = scaled_dot_product_attention(q, k[:, :3], v[:, :3])
    torch.testing.assert_close(out, short)


def test_combine_masks_ands_padding_and_causal():
    pad = padding_mask(torch.tensor([3, 1]), 3)
    both = combine_masks(pad, causal_mask(3))
    assert both.shape == (2, 3, 3)
    expected = torch.tensor([
        [[1, 0, 0], [1, 1, 0], [1, 1, 1]],
        [[1, 0, 0], [1, 0, 0], [1, 0, 0]],
    ], dtype=torch.bool)
    assert torch.equal(both, expected)
    assert combine_masks(pad).shape == (2, 1, 3)
    assert combine_masks(causal=causal_mask(3)).shape == (3, 3)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: attention_scores(torch.randn(2, 3), torch.randn(2, 4)), "same last dimension"),
        (lambda: scaled_dot_product_attention(torch.randn(2, 3), torch.randn(4, 3), torch.randn(5, 3)), "same length S"),
        (lambda: scaled_dot_product_attention(torch.randn(2, 3), torch.randn(4, 3), torch.randn(4, 3), torch.zeros(2, 4)), "must be boolean"),
        (lambda: padding_mask(torch.tensor([1.0, 2.0])), "integer"),
        (lambda: padding_mask(torch.tensor([1, -1])), "non-negative"),
        (lambda: padding_mask(torch.tensor([4]), 3), "exceeds"),
        (lambda: causal_mask(-1), "non-negative"),
        (lambda: combine_masks(), "at least one"),
        (lambda: combine_masks(padding_mask(torch.tensor([2])), causal_mask(3)), "key length"),
    ],
)
def test_bad_input_gets_a_clear_error(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_the_package_level_names_are_the_submodules_functions():
    import attnlab
    import attnlab.attention
    import attnlab.device

    for name in attnlab.__all__:
        source = attnlab.device if name in ("get_device", "set_seed") else attnlab.attention
        assert getattr(attnlab, name) is getattr(source, name), name
        assert name in dir(attnlab)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        attnlab.no_such_name  # noqa: B018
