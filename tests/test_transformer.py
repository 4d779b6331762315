"""LayerNorm, feed-forward, encoder/decoder layers and the full model against PyTorch; masks,
parameter counts, incremental decoding with a key/value cache."""

from __future__ import annotations

import json
import warnings

import pytest
import torch
from torch import nn

from attnlab import causal_mask, padding_mask, set_seed
from attnlab.layers import DecoderLayer, FeedForward, LayerNorm
from attnlab.transformer import EncoderDecoder, Seq2SeqTransformer, transformer_parameter_count
from grading import ROOT, load_script

warnings.filterwarnings("ignore", message=".*nested tensor.*")


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_layernorm_matches_torch(dtype, fused):
    set_seed(0)
    ours, theirs = LayerNorm(12, fused=fused, dtype=dtype), nn.LayerNorm(12, dtype=dtype)
    with torch.no_grad():
        theirs.weight.normal_()
        theirs.bias.normal_()
        ours.weight.copy_(theirs.weight)
        ours.bias.copy_(theirs.bias)
    x = 2 + 3 * torch.randn(3, 5, 12, dtype=dtype)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(ours(x), theirs(x), **tol)
    x.requires_grad_(True)
    (ours(x) * torch.arange(12, dtype=dtype)).sum().backward()
    grad_ours, x.grad = x.grad, None
    (theirs(x) * torch.arange(12, dtype=dtype)).sum().backward()
    torch.testing.assert_close(grad_ours, x.grad, **tol)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_matches_torch(norm_first, activation):
    set_seed(1)
    theirs = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, activation=activation, batch_first=True,
                                        norm_first=norm_first).eval()
    model = nn.Transformer(16, 4, 1, 1, 32, dropout=0.0, activation=activation, batch_first=True, norm_first=norm_first)
    model.encoder.layers[0] = theirs
    ours = EncoderDecoder(16, 4, 1, 1, 32, dropout=0.0, activation=activation, norm_first=norm_first).load_torch_weights(model)
    x = torch.randn(2, 6, 16)
    pad = padding_mask(torch.tensor([6, 3]), 6)
    with torch.no_grad():
        torch.testing.assert_close(ours.encoder_layers[0](x, pad[:, None]), theirs(x, src_key_padding_mask=~pad),
                                   rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_full_model_matches_nn_transformer(norm_first, dtype):
    set_seed(2)
    theirs = nn.Transformer(32, 4, 2, 3, 64, dropout=0.0, batch_first=True, norm_first=norm_first, dtype=dtype).eval()
    ours = EncoderDecoder(32, 4, 2, 3, 64, dropout=0.0, norm_first=norm_first, dtype=dtype).load_torch_weights(theirs).eval()
    src, tgt = torch.randn(3, 8, 32, dtype=dtype), torch.randn(3, 5, 32, dtype=dtype)
    src_real = padding_mask(torch.tensor([8, 6, 1]), 8)
    tgt_real = padding_mask(torch.tensor([5, 5, 2]), 5)
    tgt_allowed = tgt_real[:, None, :] & causal_mask(5)
    with torch.no_grad():
        a = ours(src, tgt, src_real[:, None], tgt_allowed, src_real[:, None])
        b = theirs(src, tgt, tgt_mask=~causal_mask(5), src_key_padding_mask=~src_real,
                   tgt_key_padding_mask=~tgt_real, memory_key_padding_mask=~src_real)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(a, b, **tol)


def test_gradients_match_nn_transformer():
    set_seed(3)
    theirs = nn.Transformer(16, 2, 1, 1, 32, dropout=0.0, batch_first=True, dtype=torch.float64)
    ours = EncoderDecoder(16, 2, 1, 1, 32, dropout=0.0, dtype=torch.float64).load_torch_weights(theirs)
    src, tgt = torch.randn(2, 4, 16, dtype=torch.float64), torch.randn(2, 3, 16, dtype=torch.float64)
    ours(src, tgt, tgt_allowed=causal_mask(3)).pow(2).sum().backward()
    theirs(src, tgt, tgt_mask=~causal_mask(3)).pow(2).sum().backward()
    torch.testing.assert_close(ours.encoder_layers[0].ff.linear1.weight.grad, theirs.encoder.layers[0].linear1.weight.grad)
    torch.testing.assert_close(ours.decoder_layers[0].cross_attn.in_proj.weight.grad,
                               theirs.decoder.layers[0].multihead_attn.in_proj_weight.grad)


def test_feed_forward_is_position_wise():
    set_seed(4)
    ff = FeedForward(8, 16)
    x = torch.randn(2, 5, 8)
    torch.testing.assert_close(ff(x)[:, 2], ff(x[:, 2:3])[:, 0])


def test_decoder_layer_is_causal_and_reads_the_memory():
    set_seed(5)
    layer = DecoderLayer(16, 4, 32).eval()
    y, memory = torch.randn(1, 5, 16), torch.randn(1, 7, 16)
    out = layer(y, memory, causal_mask(5))
    y2 = y.clone()
    y2[:, 3:] += 10
    torch.testing.assert_close(layer(y2, memory, causal_mask(5))[:, :3], out[:, :3])
    assert not torch.allclose(layer(y, memory + 1, causal_mask(5)), out)


def test_seq2seq_masks_hide_source_padding_and_the_future():
    model = Seq2SeqTransformer(10, 16, 2, 1, 1, 32, pad_id=0)
    src = torch.tensor([[5, 6, 0], [7, 0, 0]])
    tgt = torch.tensor([[1, 4, 0]])
    src_allowed, tgt_allowed = model.masks(src, tgt.expand(2, -1))
    assert src_allowed.tolist() == [[[True, True, False]], [[True, False, False]]]
    assert tgt_allowed[0].tolist() == [[True, False, False], [True, True, False], [True, True, False]]


def test_padding_content_does_not_change_the_logits():
    set_seed(6)
    model = Seq2SeqTransformer(12, 16, 2, 2, 2, 32, dropout=0.0, pad_id=0).eval()
    src = torch.tensor([[3, 4, 5, 0, 0]])
    tgt = torch.tensor([[1, 6, 7]])
    with torch.no_grad():
        full = model(src, tgt)
        short = model(src[:, :3], tgt)
    torch.testing.assert_close(full, short, rtol=1e-5, atol=1e-5)


def test_embeddings_are_tied_and_scaled():
    model = Seq2SeqTransformer(20, 16, 2, 1, 1, 32)
    assert model.generator.weight is model.src_embed.weight is model.tgt_embed.weight
    untied = Seq2SeqTransformer(20, 16, 2, 1, 1, 32, tie_embeddings=False)
    assert untied.generator.weight is not untied.src_embed.weight
    model.dropout.p = 0.0
    tokens = torch.tensor([[3]])
    torch.testing.assert_close(model.embed(tokens, model.src_embed)[0, 0], model.src_embed.weight[3] * 4 + model.positions[0])


def test_parameter_count_of_the_base_model():
    model = Seq2SeqTransformer(37000, 512, 8, 6, 6, 2048, device="meta")
    counted = sum(p.numel() for p in model.parameters())
    assert counted == transformer_parameter_count(37000, 512, 8, 6, 6, 2048) == 63_084_544
    untied = Seq2SeqTransformer(100, 16, 2, 1, 2, 32, tie_embeddings=False, device="meta")
    assert sum(p.numel() for p in untied.parameters()) == transformer_parameter_count(100, 16, 2, 1, 2, 32, tie_embeddings=False)


@pytest.mark.parametrize("norm_first", [False, True])
def test_cached_greedy_decoding_equals_full_recomputation(norm_first):
    set_seed(7)
    model = Seq2SeqTransformer(15, 32, 4, 2, 2, 64, dropout=0.0, norm_first=norm_first, pad_id=0).eval()
    src = torch.randint(3, 15, (5, 7))
    src[2, 4:] = 0
    cached = model.greedy_decode(src, bos_id=1, eos_id=2, max_len=12, use_cache=True)
    full = model.greedy_decode(src, bos_id=1, eos_id=2, max_len=12, use_cache=False)
    assert torch.equal(cached, full)
    # and the cached decoder's hidden states equal the full pass step by step
    memory, src_allowed = model.encode(src)
    prefix = cached[:, :6]
    with torch.no_grad():
        full_states = model.core.decode(model.embed(prefix, model.tgt_embed), memory, causal_mask(6), src_allowed)
        cache = [{} for _ in model.core.decoder_layers]
        steps = [model.core.decode(model.embed(prefix[:, i:i + 1], model.tgt_embed, offset=i), memory, None, src_allowed, cache)
                 for i in range(6)]
    torch.testing.assert_close(torch.cat(steps, dim=1), full_states, rtol=1e-5, atol=1e-5)


def test_pre_post_ln_experiment_runs_and_committed_results_support_the_page(tmp_path):
    exp = load_script("experiments/pre_post_ln.py")
    out = tmp_path / "r.json"
    exp.main(["--steps", "2", "--warmup", "1", "--seeds", "0", "1", "--out", str(out)])
    smoke = json.loads(out.read_text())["results"]
    assert len(smoke) == 6 and all(len(r["accuracy"]) == 2 for r in smoke.values())  # six arms, one entry per seed

    record = json.loads((ROOT / "experiments/results/pre_post_ln.json").read_text())
    assert len(record["config"]["seeds"]) >= 3
    acc = {name: r["accuracy"] for name, r in record["results"].items()}  # one accuracy per seed
    loss = {name: r["loss"] for name, r in record["results"].items()}
    assert max(acc["post-LN, no warm-up"]) < 0.2                         # "never leaves the starting loss in any seed"
    assert all(run[-1] < run[0] - 0.3 for run in loss["post-LN, warm-up 100"])  # "does learn, but slowly"
    assert max(acc["post-LN, warm-up 100"]) < 0.5
    assert min(acc["pre-LN, no warm-up"]) > 0.9 and min(acc["pre-LN, warm-up 100"]) > 0.9  # "in every seed"
    assert max(acc["no residual, warm-up 100"]) < 0.2                    # "does not train at all"
    assert sum(any(x is None for x in run) for run in loss["no LayerNorm, warm-up 100"]) >= 2  # "diverge"


@pytest.mark.parametrize("call, message", [
    (lambda: FeedForward(8, 16, activation="tanh"), "relu"),
    (lambda: EncoderDecoder(16, 2, 1, 1, 32).load_torch_weights(nn.Transformer(16, 2, 2, 1, 32, batch_first=True)), "number of encoder"),
])
def test_bad_input_gets_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
