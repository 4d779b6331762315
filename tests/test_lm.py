"""Chapter 9's package: RMSNorm, SwiGLU, RoPE with batched positions and both pairings, causal GQA
attention with a KV cache, the block and the LM against Hugging Face's Llama, the parameter count
against published models, generation, training with the shared loop, perplexity and the CLI."""

from __future__ import annotations

import inspect
import json
import math
from pathlib import Path

import pytest
import torch

from attnlab import set_seed
from attnlab.lm.attention import CausalSelfAttention, causal_allowed
from attnlab.lm.generate import generate
from attnlab.lm.hf import hf_key, llama_config_kwargs, load_llama_state_dict
from attnlab.lm.layers import RMSNorm, SwiGLU, swiglu_hidden_width
from attnlab.lm.model import PUBLISHED, DecoderLM, LMConfig, kv_bytes_per_token, lm_parameter_count
from attnlab.positional import rope, rope_half_permutation
from attnlab.translate.tokens import BOS, EOS, PAD

ROOT = Path(__file__).resolve().parents[1]
# the ladder's rows, as LMConfig keyword arguments (experiments/modern_lm.py)
ROWS = {
    "2017": dict(norm_first=False, norm="layernorm", ffn="relu", position="sinusoidal", bias=True),
    "pre-ln": dict(norm="layernorm", ffn="relu", position="sinusoidal", bias=True),
    "rmsnorm": dict(ffn="relu", position="sinusoidal", bias=True),
    "swiglu": dict(position="sinusoidal"),
    "rope": dict(),
    "gqa": dict(num_kv_heads=2),
}
TINY_TRAIN = dict(corpus="embedded", vocab_size=300, d_model=32, num_layers=1, num_heads=2, max_tokens=400,
                  warmup_steps=4, log_every=2, snapshot_minutes=None, device="cpu")


def tiny(**kwargs) -> LMConfig:
    return LMConfig(**{"vocab_size": 61, "d_model": 32, "num_layers": 2, "num_heads": 4, **kwargs})


# ---------------------------------------------------------------- layers

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_rmsnorm_matches_torch_rmsnorm(dtype):
    set_seed(0)
    ours, theirs = RMSNorm(24, eps=1e-5, dtype=dtype), torch.nn.RMSNorm(24, eps=1e-5, dtype=dtype)
    with torch.no_grad():
        ours.weight.normal_()
        theirs.weight.copy_(ours.weight)
    x = torch.randn(3, 5, 24, dtype=dtype) * 7
    torch.testing.assert_close(ours(x), theirs(x), atol=1e-6 if dtype == torch.float32 else 1e-12, rtol=1e-6)
    by_hand = x / (x.pow(2).mean(-1, keepdim=True) + 1e-5).sqrt() * ours.weight
    torch.testing.assert_close(ours(x), by_hand)


def test_rmsnorm_computes_in_float32_for_half_inputs():
    x = torch.randn(4, 64) * 300
    out = RMSNorm(64)(x.to(torch.bfloat16))
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out.float(), RMSNorm(64)(x.to(torch.bfloat16).float()).to(torch.bfloat16).float())


def test_swiglu_hidden_width_is_llamas():
    assert swiglu_hidden_width(4096) == 11008  # Llama 2 7B
    assert swiglu_hidden_width(4096, 1024, 1.3) == 14336  # Llama 3 8B
    assert swiglu_hidden_width(5120) == 13824  # Llama 2 13B
    assert swiglu_hidden_width(96, 32) == 256  # int(256.0) is already a multiple of 32
    with pytest.raises(ValueError, match="positive"):
        swiglu_hidden_width(0)


def test_swiglu_is_the_gated_formula():
    set_seed(1)
    ffn = SwiGLU(8, 12)
    x = torch.randn(2, 3, 8, dtype=torch.float64)
    ffn = ffn.double()
    w1, w2, w3 = ffn.w1.weight, ffn.w2.weight, ffn.w3.weight
    gate = x @ w1.T
    expected = (gate * torch.sigmoid(gate) * (x @ w3.T)) @ w2.T
    torch.testing.assert_close(ffn(x), expected)
    assert all(m.bias is None for m in (ffn.w1, ffn.w2, ffn.w3))


# ---------------------------------------------------------------- RoPE

def test_rope_accepts_positions_of_shape_batch_by_time():
    set_seed(2)
    x = torch.randn(3, 2, 5, 8, dtype=torch.float64)  # (B, H, T, Dh)
    offsets = torch.tensor([0, 4, 9])
    positions = offsets[:, None, None] + torch.arange(5)  # (B, 1, T)
    batched = rope(x, positions)
    for b in range(3):
        torch.testing.assert_close(batched[b], rope(x[b], torch.arange(5) + offsets[b]))
    torch.testing.assert_close(rope(x, torch.arange(5)), rope(x))
    x3 = torch.randn(3, 5, 8, dtype=torch.float64)
    torch.testing.assert_close(rope(x3, torch.arange(5)[None]), rope(x3))  # (1, T) against (B, T, Dh)


def test_rope_refuses_positions_that_do_not_fit():
    x = torch.randn(2, 3, 4, 8)  # T = 4 = Dh / 2: the old code silently gave a wrong result for (1, T)
    with pytest.raises(ValueError, match=r"positions of shape \(1, 4\) do not fit x of shape \(2, 3, 4, 8\).*positions\[:, None, :\]"):
        rope(x, torch.arange(4)[None])
    with pytest.raises(ValueError, match=r"positions of shape \(5,\)"):
        rope(x, torch.arange(5))
    with pytest.raises(ValueError, match="do not fit"):
        rope(x, torch.zeros(3, 1, 4, dtype=torch.long))  # batch 3 against batch 2
    with pytest.raises(TypeError, match="integers"):
        rope(x, torch.arange(4.0))
    with pytest.raises(ValueError, match="pairing"):
        rope(x, pairing="interleaved")


def test_rope_pairings_are_one_rotation_up_to_a_permutation():
    set_seed(3)
    x = torch.randn(2, 7, 16, dtype=torch.float64)
    perm = rope_half_permutation(16)
    assert perm.tolist() == [0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15]
    torch.testing.assert_close(rope(x, pairing="adjacent")[..., perm], rope(x[..., perm], pairing="half"))
    assert not torch.allclose(rope(x, pairing="adjacent"), rope(x, pairing="half"))
    # the half layout keeps the relative-position property and the norms
    q, k = torch.randn(16, dtype=torch.float64), torch.randn(16, dtype=torch.float64)
    qr, kr = rope(q.expand(30, 16), pairing="half"), rope(k.expand(30, 16), pairing="half")
    torch.testing.assert_close(qr[10] @ kr[7], qr[25] @ kr[22])
    torch.testing.assert_close(qr.norm(dim=-1), q.norm().expand(30))


# ---------------------------------------------------------------- attention, block, model

def test_causal_allowed_with_past():
    assert causal_allowed(2, 3).tolist() == [[True, True, True, True, False], [True, True, True, True, True]]
    assert torch.equal(causal_allowed(4, 0), torch.ones(4, 4, dtype=torch.bool).tril())


@pytest.mark.parametrize("kv_heads", [4, 2, 1])
def test_cached_attention_equals_full_attention(kv_heads):
    set_seed(4)
    attn = CausalSelfAttention(32, 4, kv_heads).eval()
    x = torch.randn(2, 7, 32)
    full = attn(x)
    from attnlab.kvcache import KVCache

    cache = KVCache()
    parts = [attn(x[:, :3], cache), attn(x[:, 3:4], cache), attn(x[:, 4:], cache)]
    torch.testing.assert_close(torch.cat(parts, 1), full, atol=1e-6, rtol=1e-5)
    assert cache.keys.shape == (2, kv_heads, 7, 8)  # G heads are cached, not H
    # causal: changing a later token leaves earlier outputs alone
    y = x.clone()
    y[:, 5] += 1
    torch.testing.assert_close(attn(y)[:, :5], full[:, :5])
    assert not torch.allclose(attn(y)[:, 5], full[:, 5])


@pytest.mark.parametrize("row", list(ROWS))
def test_every_ladder_row_counts_its_parameters_and_caches_exactly(row):
    set_seed(5)
    for tie in (True, False):
        config = tiny(**ROWS[row], tie_embeddings=tie)
        model = DecoderLM(config).eval()
        assert lm_parameter_count(config) == sum(p.numel() for p in model.parameters())
        tokens = torch.randint(0, 61, (2, 9))
        full = model(tokens)
        cache = model.new_cache()
        stepwise = torch.cat([model(tokens[:, :4], cache)] + [model(tokens[:, i:i + 1], cache) for i in range(4, 9)], 1)
        torch.testing.assert_close(stepwise, full, atol=1e-5, rtol=1e-5)
    assert kv_bytes_per_token(config) == 2 * 2 * config.kv_heads * 8 * 4


def test_post_ln_and_pre_ln_blocks_differ_where_they_should():
    post, pre = DecoderLM(tiny(**ROWS["2017"])), DecoderLM(tiny(**ROWS["pre-ln"]))
    assert isinstance(post.norm, torch.nn.Identity) and not isinstance(pre.norm, torch.nn.Identity)
    assert post.blocks[0].attn.q_proj.bias is not None and DecoderLM(tiny()).blocks[0].attn.q_proj.bias is None
    model = DecoderLM(tiny())
    assert model.lm_head.weight is model.embed.weight
    untied = DecoderLM(tiny(tie_embeddings=False))
    assert untied.lm_head.weight is not untied.embed.weight


def test_lm_config_refuses_bad_architectures():
    with pytest.raises(ValueError, match="norm must be one of"):
        tiny(norm="batchnorm")
    with pytest.raises(ValueError, match="not a multiple of num_kv_heads=3"):
        tiny(num_kv_heads=3)
    with pytest.raises(ValueError, match="divisible"):
        tiny(num_heads=5)
    with pytest.raises(ValueError, match="longer than max_len=8"):
        DecoderLM(tiny(position="sinusoidal", max_len=8))(torch.zeros(1, 9, dtype=torch.long))
    with pytest.raises(ValueError, match="Llama-style"):
        llama_config_kwargs(tiny(**ROWS["2017"]))


def test_parameter_count_matches_published_models():
    expected = {"Llama 2 7B": 6_738_415_616, "Llama 3 8B": 8_030_261_248, "Mistral 7B": 7_241_732_096,
                "TinyLlama 1.1B": 1_100_048_384}
    for name, (config, published) in PUBLISHED.items():
        count = lm_parameter_count(config)
        assert count == expected[name]
        digits = len(published.split(".")[1].rstrip("B")) if "." in published else 0
        assert f"{count / 1e9:.{digits}f}B" == published, name
    assert PUBLISHED["Llama 2 7B"][0].hidden == swiglu_hidden_width(4096)


# ---------------------------------------------------------------- parity with transformers

@pytest.fixture(scope="module")
def llama():
    transformers = pytest.importorskip("transformers", reason="transformers is a test dependency: pip install -e .[test]")
    return transformers


def _hf_model(llama, config: LMConfig):
    set_seed(6)
    hf_config = llama.LlamaConfig(**llama_config_kwargs(config))
    hf_config._attn_implementation = "sdpa"
    model = llama.LlamaForCausalLM(hf_config).eval()
    with torch.no_grad():  # random norm weights too, so a norm mapped to the wrong place shows
        for name, p in model.named_parameters():
            if "norm" in name:
                p.uniform_(0.5, 1.5)
    return model


def _hf_cached(hf, tokens: torch.Tensor, split: int) -> torch.Tensor:
    """Logits of tokens[:, split:] after tokens[:, :split] went through HF's cache."""
    name = "cache" if "cache" in inspect.signature(hf.forward).parameters else "past_key_values"
    first = hf(tokens[:, :split], use_cache=True)
    past = getattr(first, "cache", None) or first.past_key_values
    return hf(tokens[:, split:], use_cache=True, **{name: past}).logits


@pytest.mark.parametrize("pairing,tie", [("half", True), ("half", False), ("adjacent", True)])
def test_lm_matches_llama_for_causal_lm(llama, pairing, tie):
    config = tiny(num_kv_heads=2, rope_pairing=pairing, tie_embeddings=tie, norm_eps=1e-5)
    hf = _hf_model(llama, config)
    ours = load_llama_state_dict(DecoderLM(config), hf.state_dict()).eval()
    tokens = torch.randint(0, 61, (2, 12), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        theirs = hf(tokens).logits
        torch.testing.assert_close(ours(tokens), theirs, atol=1e-6, rtol=1e-5)
        cache = ours.new_cache()
        ours(tokens[:, :7], cache)
        torch.testing.assert_close(ours(tokens[:, 7:], cache), _hf_cached(hf, tokens, 7), atol=1e-6, rtol=1e-5)
        torch.testing.assert_close(_hf_cached(hf, tokens, 7), theirs[:, 7:], atol=1e-6, rtol=1e-5)


def test_block_matches_llama_decoder_layer(llama):
    config = tiny(num_kv_heads=2, num_layers=1, norm_eps=1e-5)
    hf = _hf_model(llama, config)
    ours = load_llama_state_dict(DecoderLM(config), hf.state_dict()).eval()
    x = torch.randn(2, 10, 32)
    positions = torch.arange(10)[None].expand(2, 10)
    with torch.no_grad():
        theirs = hf.model.layers[0](x, attention_mask=None, position_ids=positions,
                                    position_embeddings=hf.model.rotary_emb(x, positions))
        theirs = theirs[0] if isinstance(theirs, tuple) else theirs
        torch.testing.assert_close(ours.blocks[0](x), theirs, atol=1e-6, rtol=1e-5)
        torch.testing.assert_close(ours.blocks[0].attn_norm(x), hf.model.layers[0].input_layernorm(x), atol=1e-6, rtol=1e-6)


def test_every_parameter_has_a_llama_name():
    model = DecoderLM(tiny(tie_embeddings=False))
    names = {hf_key(n) for n, _ in model.named_parameters()}
    assert "model.layers.1.mlp.gate_proj.weight" in names and "lm_head.weight" in names
    assert len(names) == len(list(model.named_parameters()))
    with pytest.raises(KeyError, match="no Llama name"):
        hf_key("blocks.0.attn.rotary.weight")


# ---------------------------------------------------------------- generation

@pytest.fixture(scope="module")
def small_lm():
    set_seed(7)
    return DecoderLM(tiny(num_kv_heads=2)).eval()


def test_greedy_with_cache_equals_without(small_lm):
    prompt = torch.randint(4, 61, (3, 5), generator=torch.Generator().manual_seed(1))
    cached = generate(small_lm, prompt, 12)
    assert cached.shape == (3, 17) and torch.equal(cached[:, :5], prompt)
    assert torch.equal(cached, generate(small_lm, prompt, 12, use_cache=False))
    by_hand = prompt
    for _ in range(12):
        by_hand = torch.cat([by_hand, small_lm(by_hand)[:, -1].argmax(-1, keepdim=True)], 1)
    assert torch.equal(cached, by_hand)


def test_sampling_uses_the_generator_and_the_filters(small_lm):
    prompt = torch.randint(4, 61, (2, 3), generator=torch.Generator().manual_seed(2))
    a = generate(small_lm, prompt, 10, temperature=1.0, generator=torch.Generator().manual_seed(5))
    b = generate(small_lm, prompt, 10, temperature=1.0, generator=torch.Generator().manual_seed(5), use_cache=False)
    assert torch.equal(a, b)
    assert not torch.equal(a, generate(small_lm, prompt, 10, temperature=1.0, generator=torch.Generator().manual_seed(6)))
    tiny_nucleus = generate(small_lm, prompt, 10, temperature=1.0, top_p=1e-6, generator=torch.Generator().manual_seed(5))
    assert torch.equal(tiny_nucleus, generate(small_lm, prompt, 10))  # only the most probable token survives
    with pytest.raises(ValueError, match="give a temperature"):
        generate(small_lm, prompt, 3, top_p=0.9)
    with pytest.raises(ValueError, match="prompt must be"):
        generate(small_lm, prompt[0], 3)


def test_generation_stops_at_eos(small_lm):
    prompt = torch.randint(4, 61, (2, 3), generator=torch.Generator().manual_seed(3))
    first = generate(small_lm, prompt, 1)[:, -1]
    eos = int(first[0])
    out = generate(small_lm, prompt, 20, eos_id=eos)
    assert (out[0, 3:] == eos).all()  # row 0 ended at once and stays ended
    free = generate(small_lm, prompt, out.shape[1] - 3)
    row1 = free[1, 3:].tolist()
    ended = row1.index(eos) + 1 if eos in row1 else len(row1)
    assert out[1, 3:3 + ended].tolist() == row1[:ended]  # row 1 runs until its own eos
    assert out.shape[1] == 23 or (out[:, -1] == eos).all()  # stops early only when every row has ended


# ---------------------------------------------------------------- training, perplexity, CLI

def test_lm_batch_shifts_and_perplexity_is_exp_mean_nll():
    from attnlab.lm.train import lm_batch, perplexity

    inputs, targets = lm_batch([[7, 8, 9, EOS], [5, EOS]])
    assert inputs.tolist() == [[BOS, 7, 8, 9], [BOS, 5, PAD, PAD]]
    assert targets.tolist() == [[7, 8, 9, EOS], [5, EOS, PAD, PAD]]
    set_seed(8)
    model = DecoderLM(tiny()).eval()
    ids = [[7, 8, 9, EOS], [5, EOS], [11, 12, 13, 14, 15, EOS]]
    nll, n = 0.0, 0
    for s in ids:
        with torch.no_grad():
            logp = torch.log_softmax(model(torch.tensor([[BOS] + s[:-1]]))[0].double(), -1)
        nll -= sum(float(logp[t, tok]) for t, tok in enumerate(s))
        n += len(s)
    assert perplexity(model, ids) == pytest.approx(math.exp(nll / n), rel=1e-5)


def test_lm_training_resumes_exactly_and_lowers_perplexity(tmp_path):
    from attnlab.lm.train import LMTrainConfig, evaluate, load_checkpoint, train

    straight = train(LMTrainConfig(**TINY_TRAIN, max_steps=6), tmp_path / "straight", progress=False)
    train(LMTrainConfig(**TINY_TRAIN, max_steps=3), tmp_path / "split", progress=False)
    train(LMTrainConfig(**TINY_TRAIN, max_steps=6), tmp_path / "split", resume=True, progress=False)
    a, b = load_checkpoint(tmp_path / "straight" / "checkpoint.pt"), load_checkpoint(tmp_path / "split" / "checkpoint.pt")
    assert straight["steps"] == 6 and all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
    assert "English side" in a["corpus"] and a["format"] == "attnlab-lm/1"
    with pytest.raises(ValueError, match=r"different configuration: d_model \(saved 32, given 64\)"):
        train(LMTrainConfig(**{**TINY_TRAIN, "d_model": 64}, max_steps=8), tmp_path / "split", resume=True, progress=False)
    before = evaluate(tmp_path / "straight" / "checkpoint.pt", ("val",))["val_perplexity"]
    train(LMTrainConfig(**{**TINY_TRAIN, "peak_lr": 3e-3}, max_steps=20), tmp_path / "longer", progress=False)
    after = evaluate(tmp_path / "longer" / "checkpoint.pt", ("val", "test_2016_flickr"))
    assert after["val_perplexity"] < 0.8 * before and after["test_2016_flickr_perplexity"] > 1
    with pytest.raises(ValueError, match="not an attnlab-lm checkpoint"):
        load_checkpoint(_translation_checkpoint(tmp_path))


def _translation_checkpoint(tmp_path: Path) -> Path:
    torch.save({"format": "attnlab-translate/1"}, tmp_path / "other.pt")
    return tmp_path / "other.pt"


def test_process_clock_budget_stops_training(tmp_path):
    from attnlab.lm.train import LMTrainConfig, train

    summary = train(LMTrainConfig(**TINY_TRAIN, minutes=0.02, clock="process"), tmp_path, progress=False)
    assert summary["steps"] >= 1 and 1.2 <= summary["train_seconds"] < 1.2 + 30
    with pytest.raises(ValueError, match="clock must be wall or process"):
        LMTrainConfig(**TINY_TRAIN, max_steps=1, clock="gpu")


def _cli_args() -> list[str]:
    return [f"--{k.replace('_', '-')}={v}" for k, v in TINY_TRAIN.items() if k != "snapshot_minutes"]


def test_cli_train_evaluate_generate(tmp_path, capsys):
    from attnlab.lm.cli import main

    run = tmp_path / "run"
    assert main(["train", "--out", str(run), "--max-steps=4", "--no-progress", *_cli_args()]) == 0
    assert json.loads(capsys.readouterr().out)["steps"] == 4
    assert main(["evaluate", str(run / "checkpoint.pt"), "--splits", "val", "--device", "cpu",
                 "--results", str(tmp_path / "r.json")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["val_perplexity"] > 1 and json.loads((tmp_path / "r.json").read_text())["hardware"]
    assert main(["generate", str(run / "checkpoint.pt"), "A dog", "--max-new-tokens", "5", "--device", "cpu",
                 "--temperature", "0.8", "--top-p", "0.9", "--timing"]) == 0
    out = capsys.readouterr()
    assert out.out.strip() and json.loads(out.err.strip().splitlines()[-1])["cache"] is True
    # resume: saved options are kept, changed ones refused, budgets are totals
    assert main(["train", "--out", str(run), "--resume", "--max-steps=6", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["steps"] == 6
    assert main(["train", "--out", str(run), "--resume", "--max-steps=9", "--d-model=64"]) == 2
    assert "--d-model: saved 32, given 64" in capsys.readouterr().err
    assert main(["train", "--out", str(run), "--resume", "--max-steps=6"]) == 2
    assert "budget already reached: step 6 of --max-steps 6" in capsys.readouterr().err


def test_cli_errors_name_options(tmp_path, capsys):
    from attnlab.lm.cli import main

    assert main(["train", "--out", str(tmp_path / "x"), *_cli_args()]) == 2
    assert "give a training budget: --minutes, --max-steps" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path / "x"), "--max-steps=1", "--num-kv-heads=3", *_cli_args()]) == 2
    assert "num_kv_heads=3" in capsys.readouterr().err
    assert main(["generate", str(tmp_path / "missing.pt"), "x", "--top-p", "0.9"]) == 2
    assert "--top-p samples: give --temperature" in capsys.readouterr().err
    assert main(["generate", str(tmp_path / "missing.pt"), "x", "--device", "cpu"]) == 1
    assert "no checkpoint" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path / "y"), "--resume", "--max-steps=1"]) == 2
    assert "no checkpoint" in capsys.readouterr().err


def test_cli_train_help_describes_every_option():
    from attnlab.lm.train import LMTrainConfig
    from attnlab.training_cli import config_fields, field_help

    comments = field_help(LMTrainConfig)
    assert all(name in comments for name in config_fields(LMTrainConfig)), "every LMTrainConfig field has a comment"
    assert "process" in comments["clock"] and "RoPE" in comments["rope_base"]
    # a field the language model redefines keeps its own comment, not the loop's
    assert comments["schedule"].startswith('"inverse_sqrt"')


# ---------------------------------------------------------------- the ladder

def test_ladder_script_smoke(tmp_path):
    """experiments/modern_lm.py end to end on two tiny rows: training, perplexity, KV bytes, generation speed."""
    import subprocess
    import sys

    out = tmp_path / "r.json"
    cmd = [sys.executable, str(ROOT / "experiments" / "modern_lm.py"), "--cpu-minutes", "0.01", "--rows", "2017", "gqa",
           "--corpus", "embedded", "--run-dir", str(tmp_path), "--gen-tokens", "4", "--out", str(out), "--d-model", "32",
           "--num-layers", "1", "--vocab-size", "300"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads(out.read_text())
    rows = record["results"]["rows"]
    assert [r["row"] for r in rows] == ["2017", "gqa"] and all(r["val_perplexity"] > 1 for r in rows)
    assert rows[1]["kv_bytes_per_token_fp32"] == rows[0]["kv_bytes_per_token_fp32"] // 2
    assert record["results"]["generation"]["gqa"]["ms_per_token_cache"] > 0
    assert "process CPU" in record["results"]["budget"]


def test_ladder_rows_are_the_ones_tested_here():
    import importlib.util

    spec = importlib.util.spec_from_file_location("modern_lm_rows", ROOT / "experiments" / "modern_lm.py")
    exp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(exp)
    assert list(exp.LADDER) == list(ROWS)
    for name, changes in exp.LADDER.items():
        config = LMConfig(61, **changes)
        expected = LMConfig(61, **ROWS[name])
        assert config == expected, name


def test_ladder_results_record_what_the_chapter_shows():
    path = ROOT / "experiments" / "results" / "modern_lm.json"
    if not path.exists():
        pytest.skip("experiments/results/modern_lm.json not committed yet")
    record = json.loads(path.read_text())
    assert record["command"].startswith("python experiments/modern_lm.py")
    assert record["hardware"] and record["date"]
    rows = record["results"]["rows"]
    assert {r["row"] for r in rows} == set(ROWS)
    assert all(r["val_perplexity"] > 1 and r["tokens_per_cpu_second"] > 0 for r in rows)
    assert "process CPU" in record["results"]["budget"]
