"""Positional schemes: sinusoidal table and its shift matrices, RoPE, ALiBi, T5 buckets, Shaw."""

from __future__ import annotations

import json
import math

import pytest
import torch

from attnlab import set_seed
from attnlab.positional import (
    RelativePositionBias, add_sinusoidal_positions, alibi_bias, alibi_slopes, rope, shaw_relative_scores,
    sinusoidal_encoding, sinusoidal_shift_matrix, t5_relative_bucket,
)
from grading import ROOT, load_script


def test_sinusoidal_table_matches_the_formula_entry_by_entry():
    pe = sinusoidal_encoding(20, 10, dtype=torch.float64)
    for pos in range(20):
        for i in range(5):
            angle = pos / 10000 ** (2 * i / 10)
            assert pe[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-12)
            assert pe[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-12)


@pytest.mark.parametrize("offset", [1, 3, 40])
def test_shift_matrix_maps_every_position_to_position_plus_k(offset):
    pe = sinusoidal_encoding(100, 32, dtype=torch.float64)
    m = sinusoidal_shift_matrix(offset, 32, dtype=torch.float64)
    torch.testing.assert_close(pe[: 100 - offset] @ m, pe[offset:], rtol=0, atol=1e-12)
    torch.testing.assert_close(m @ m.T, torch.eye(32, dtype=torch.float64))  # a rotation


def test_embeddings_are_scaled_before_positions_are_added():
    emb = torch.ones(2, 3, 16)
    out = add_sinusoidal_positions(emb)
    torch.testing.assert_close(out, (4.0 + sinusoidal_encoding(3, 16)).expand(2, 3, 16))


def test_rope_scores_depend_only_on_the_offset():
    set_seed(0)
    q, k = torch.randn(32, dtype=torch.float64), torch.randn(32, dtype=torch.float64)
    qr, kr = rope(q.expand(60, 32)), rope(k.expand(60, 32))
    scores = qr @ kr.T
    for offset in (-20, -1, 0, 5, 30):
        diag = torch.diagonal(scores, offset)
        assert (diag.max() - diag.min()).item() < 1e-10
    assert scores[0, 0].item() == pytest.approx((q @ k).item())


def test_rope_matches_complex_multiplication_and_keeps_norms():
    set_seed(1)
    x = torch.randn(2, 3, 7, 8, dtype=torch.float64)
    theta = 10000.0 ** (-torch.arange(0, 8, 2, dtype=torch.float64) / 8)
    rot = torch.polar(torch.ones(7, 4, dtype=torch.float64), torch.arange(7.0, dtype=torch.float64)[:, None] * theta)
    expected = torch.view_as_real(torch.view_as_complex(x.reshape(2, 3, 7, 4, 2).contiguous()) * rot).reshape(x.shape)
    torch.testing.assert_close(rope(x), expected)
    torch.testing.assert_close(rope(x).norm(dim=-1), x.norm(dim=-1))


def test_alibi_slopes_follow_press_et_al():
    torch.testing.assert_close(alibi_slopes(8), torch.tensor([2.0 ** -(i + 1) for i in range(8)]))
    # 6 heads: the 4 slopes of H=4, then every other slope of H=8
    torch.testing.assert_close(alibi_slopes(6), torch.tensor([2**-2, 2**-4, 2**-6, 2**-8, 2**-1, 2**-3]))


def test_alibi_bias_penalises_distance_linearly():
    b = alibi_bias(4, 5)
    assert b.shape == (4, 5, 5)
    slopes = alibi_slopes(4)
    for h in range(4):
        for i in range(5):
            for j in range(5):
                assert b[h, i, j].item() == pytest.approx(-slopes[h].item() * abs(i - j))


def test_t5_buckets_exact_then_logarithmic_then_saturated():
    rel = torch.arange(-300, 301)
    uni = t5_relative_bucket(rel, 32, 128, bidirectional=False)
    assert uni[rel > 0].eq(0).all()                       # future keys all share bucket 0
    assert uni[300 - 15: 301].flip(0).tolist() == list(range(16))  # distances 0..15 exact
    assert uni.max().item() == 31 and uni[0].item() == 31   # far past saturates
    bi = t5_relative_bucket(rel, 32, 128, bidirectional=True)
    assert bi[301].item() == 17 and bi[299].item() == 1     # j - i = +1 and -1
    assert bi.max().item() == 31 and bi.min().item() == 0
    assert (torch.diff(uni[:301]) <= 0).all()              # monotone in distance


def test_relative_position_bias_is_shared_along_diagonals():
    layer = RelativePositionBias(num_heads=3)
    bias = layer(6)
    assert bias.shape == (3, 6, 6)
    for offset in range(-5, 6):
        diag = torch.diagonal(bias, offset, dim1=1, dim2=2)
        assert (diag == diag[:, :1]).all()


def test_shaw_scores_equal_an_explicit_loop():
    set_seed(2)
    q = torch.randn(2, 5, 4, dtype=torch.float64)
    rel = torch.randn(5, 4, dtype=torch.float64)  # offsets -2..2
    got = shaw_relative_scores(q, rel)
    for i in range(5):
        for j in range(5):
            a = rel[max(-2, min(2, j - i)) + 2]
            torch.testing.assert_close(got[:, i, j], q[:, i] @ a)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: sinusoidal_encoding(4, 5), "even"),
        (lambda: rope(torch.zeros(3, 5)), "even"),
        (lambda: alibi_slopes(0), "positive"),
    ],
)
def test_bad_input_gets_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_extrapolation_experiment_runs_and_writes_a_results_file(tmp_path):
    exp = load_script("experiments/positional_extrapolation.py")
    out = tmp_path / "r.json"
    exp.main(["--steps", "3", "--lengths", "8", "16", "--schemes", "rope", "learned", "--seeds", "0", "1",
              "--out", str(out)])
    record = json.loads(out.read_text())
    assert set(record) >= {"command", "date", "hardware", "config", "results"}
    assert set(record["results"]) == {"rope", "learned"}
    assert len(record["results"]["rope"]["accuracy"]["16"]) == 2  # one accuracy per seed
    assert all(0 <= a <= 1 for a in record["results"]["rope"]["accuracy"]["16"])


def test_committed_extrapolation_results_support_the_page():
    record = json.loads((ROOT / "experiments/results/positional_extrapolation.json").read_text())
    assert record["command"].startswith("python experiments/positional_extrapolation.py")
    seeds = lambda scheme, n: record["results"][scheme]["accuracy"][str(n)]
    acc = lambda scheme, n: sum(seeds(scheme, n)) / len(seeds(scheme, n))  # the page shows the mean
    assert len(record["config"]["seeds"]) >= 3 and all(len(seeds("rope", n)) >= 3 for n in record["config"]["lengths"])
    longest = record["config"]["lengths"][-1]
    assert longest >= 8 * record["config"]["train_length"]
    for scheme in ("learned", "rope", "t5"):
        assert acc(scheme, 16) >= 0.95, scheme                       # "solve the task"
    assert acc("sinusoidal", 16) >= 0.8 and acc("alibi", 16) >= 0.8  # "nearly", "mostly"
    assert acc("none", 16) <= 0.5                                    # "can only guess"
    for scheme in ("learned", "sinusoidal"):
        assert max(seeds(scheme, longest)) <= 0.3, scheme            # "collapse", every seed
    assert abs(acc("sinusoidal", longest) - acc("learned", longest)) < 0.05  # "end at the same level"
    assert acc("t5", longest) <= 0.5                                 # buckets never trained
    for scheme in ("alibi", "rope"):
        assert min(seeds(scheme, longest)) >= 0.8, scheme            # "keep most of their accuracy", every seed
    spread = max(max(seeds(s, longest)) - min(seeds(s, longest)) for s in record["results"])
    gaps = acc("rope", longest) - acc("t5", longest)
    assert spread < gaps / 3                                         # "far less than the gaps between schemes"
