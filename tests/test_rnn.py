"""RNN cell and unrolling against nn.RNN (also packed, padded batches), additive attention,
gradient-by-distance, and the chapter 1 experiment's results file."""

from __future__ import annotations

import json

import pytest
import torch
from torch import nn

from attnlab import set_seed
from attnlab.rnn import AdditiveAttention, RNNCell, gradient_by_distance, run_rnn
from grading import ROOT, load_script


def test_rnn_cell_unrolled_matches_nn_rnn():
    set_seed(0)
    ref = nn.RNN(4, 6, batch_first=True, dtype=torch.float64)
    cell = RNNCell(4, 6, dtype=torch.float64).load_torch_weights(ref)
    x = torch.randn(3, 9, 4, dtype=torch.float64)
    h0 = torch.randn(3, 6, dtype=torch.float64)
    ours, last = run_rnn(cell, x, h0=h0)
    theirs, h_n = ref(x, h0[None])
    torch.testing.assert_close(ours, theirs)
    torch.testing.assert_close(last, h_n[0])


def test_padded_batch_matches_packed_sequences():
    set_seed(1)
    ref = nn.RNN(3, 5, batch_first=True)
    cell = RNNCell(3, 5).load_torch_weights(ref)
    x, lengths = torch.randn(4, 7, 3), torch.tensor([7, 1, 4, 2])
    ours, last = run_rnn(cell, x, lengths)
    packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    out, h_n = ref(packed)
    theirs, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=7)
    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(last, h_n[0], rtol=1e-5, atol=1e-6)
    assert (ours[1, 1:] == 0).all()


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16])
def test_lengths_in_a_narrow_integer_dtype_do_not_wrap(dtype):
    # T = 300 steps: past the range of uint8 and int8, where `step < lengths` would wrap around
    set_seed(2)
    cell = RNNCell(2, 3)
    x, lengths = torch.randn(3, 300, 2), torch.tensor([0, 100, 120])
    want, want_last = run_rnn(cell, x, lengths)
    got, last = run_rnn(cell, x, lengths.to(dtype))
    torch.testing.assert_close(got, want, rtol=0, atol=0)
    torch.testing.assert_close(last, want_last, rtol=0, atol=0)
    assert (got[0] == 0).all() and (got[1, 100:] == 0).all()


def test_run_rnn_accepts_torch_cells():
    set_seed(2)
    gru = nn.GRUCell(3, 4)
    out, last = run_rnn(gru, torch.randn(2, 5, 3))
    assert out.shape == (2, 5, 4)
    torch.testing.assert_close(out[:, -1], last)


def test_additive_attention_weights_and_context():
    set_seed(3)
    att = AdditiveAttention(4, 6, 8)
    q, keys = torch.randn(2, 4), torch.randn(2, 5, 6)
    allowed = torch.tensor([[True] * 5, [True, True, False, False, False]])
    context, weights = att(q, keys, allowed)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2))
    assert (weights[1, 2:] == 0).all()
    torch.testing.assert_close(context, torch.einsum("bs,bsk->bk", weights, keys))
    expected = att.v(torch.tanh(att.w_q(q[0]) + att.w_k(keys[0]))).squeeze(-1).softmax(-1)
    torch.testing.assert_close(weights[0], expected)


def test_gradient_by_distance_sees_the_recurrence_fade():
    set_seed(4)
    rnn = nn.RNN(8, 8, batch_first=True)
    g = gradient_by_distance(lambda x: rnn(x)[0], 40, 8, generator=torch.Generator().manual_seed(0))
    assert g.shape == (40,)
    assert g[-1] > 100 * g[0]  # the last input matters far more than the first


def test_gradient_by_distance_of_a_position_wise_map_is_zero_elsewhere():
    lin = nn.Linear(3, 3)
    g = gradient_by_distance(lin, 6, 3)
    assert (g[:-1] == 0).all() and g[-1] > 0


def test_load_rejects_relu_rnn():
    with pytest.raises(ValueError, match="tanh"):
        RNNCell(3, 4).load_torch_weights(nn.RNN(3, 4, nonlinearity="relu"))


def test_seq2seq_experiment_runs_and_committed_results_support_the_page(tmp_path):
    exp = load_script("experiments/seq2seq_attention.py")
    out = tmp_path / "r.json"
    exp.main(["--steps", "2", "--lengths", "4", "--out", str(out)])
    assert set(json.loads(out.read_text())["results"]) == {"fixed context", "additive attention"}

    record = json.loads((ROOT / "experiments/results/seq2seq_attention.json").read_text())
    res = record["results"]
    lengths = record["config"]["lengths"]
    short, long = str(lengths[0]), str(lengths[-1])
    assert res["fixed context"]["accuracy"][short] > 0.8 and res["additive attention"]["accuracy"][short] > 0.8
    assert res["fixed context"]["accuracy"][long] < 0.5          # "falls to"
    assert res["additive attention"]["accuracy"][long] > 0.8     # "keeps"
    weights = torch.tensor(res["additive attention"]["example"]["weights"])
    assert (weights.argmax(-1) == torch.arange(weights.shape[0])).float().mean() > 0.8  # the diagonal
