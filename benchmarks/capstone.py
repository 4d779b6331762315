"""Training throughput of the capstone model against the same model built on torch.nn.Transformer.

Both models get the configuration of `attnlab-translate train` (its defaults: d_model 256, 3+3
layers, d_ff 1024, 4 heads, tied embeddings scaled by sqrt(d), sinusoidal positions, Post-LN, label
smoothing 0.1, Adam, clipping, and its dropout and tokens per batch; the results file records them)
and train on the same real batches (Multi30k if its files are on disk, else the embedded corpus; BPE). Steps of the two models alternate
within one run, so load on a shared machine hits both alike. Prints target tokens per second of
each and the ratio attnlab / torch (target >= 1.0).

    python benchmarks/capstone.py                    # 40 timed steps per model, auto device
    python benchmarks/capstone.py --steps 80 --device cpu
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import time
from pathlib import Path

import torch
from torch import nn

from attnlab import get_device, set_seed
from attnlab.results import write_results
from attnlab.positional import sinusoidal_encoding
from attnlab.translate.data import load_corpus
from attnlab.translate.tokens import PAD, encode, make_batch, token_batches, train_bpe
from attnlab.translate.train import TrainConfig, build_model, label_smoothed_loss


class TorchSeq2Seq(nn.Module):
    """What a user would write with PyTorch's own module: the same embeddings, positions and
    output layer around ``nn.Transformer`` (batch_first, Post-LN, ReLU). Dropout on the attention
    weights, which ``nn.MultiheadAttention`` adds and the paper's model does not have, is set to 0
    so that both models do the same arithmetic."""

    def __init__(self, vocab: int, config: TrainConfig, device):
        super().__init__()
        d = config.d_model
        self.d_model = d
        self.embed = nn.Embedding(vocab, d, device=device)
        nn.init.normal_(self.embed.weight, std=d ** -0.5)
        self.transformer = nn.Transformer(d, config.num_heads, config.encoder_layers, config.decoder_layers,
                                          config.d_ff, config.dropout, batch_first=True, device=device)
        for layer in [*self.transformer.encoder.layers, *self.transformer.decoder.layers]:
            for attn in (getattr(layer, "self_attn", None), getattr(layer, "multihead_attn", None)):
                if attn is not None:  # nn.MultiheadAttention also drops attention weights; attnlab does not
                    attn.dropout = 0.0
        self.generator = nn.Linear(d, vocab, bias=False, device=device)
        self.generator.weight = self.embed.weight
        self.dropout = nn.Dropout(config.dropout)
        self.register_buffer("positions", sinusoidal_encoding(1024, d, device=device), persistent=False)

    def forward(self, src, tgt):
        def emb(x):
            return self.dropout(self.embed(x) * math.sqrt(self.d_model) + self.positions[:x.shape[1]])
        causal = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1], device=tgt.device)
        src_pad, tgt_pad = src == PAD, tgt == PAD
        out = self.transformer(emb(src), emb(tgt), tgt_mask=causal, src_key_padding_mask=src_pad,
                               tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad, tgt_is_causal=True)
        return self.generator(out)

    @torch.no_grad()
    def greedy_decode(self, src, bos_id: int, eos_id: int, max_len: int = 100):
        """Greedy decoding as a user of ``nn.Transformer`` writes it (no cache: the decoder reruns over
        the whole prefix at every step); ``(B, 1 + steps)`` ids starting with ``<bos>``."""
        def emb(x):
            return self.embed(x) * math.sqrt(self.d_model) + self.positions[:x.shape[1]]
        src_pad = src == PAD
        memory = self.transformer.encoder(emb(src), src_key_padding_mask=src_pad)
        tokens = torch.full((src.shape[0], 1), bos_id, dtype=torch.long, device=src.device)
        done = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)
        for _ in range(max_len):
            causal = nn.Transformer.generate_square_subsequent_mask(tokens.shape[1], device=src.device)
            h = self.transformer.decoder(emb(tokens), memory, tgt_mask=causal, memory_key_padding_mask=src_pad,
                                         tgt_is_causal=True)
            nxt = self.generator(h[:, -1]).argmax(-1)
            nxt = torch.where(done, torch.full_like(nxt, eos_id), nxt)
            tokens = torch.cat([tokens, nxt[:, None]], dim=1)
            done |= nxt == eos_id
            if bool(done.all()):
                break
        return tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="auto")
    parser.add_argument("--steps", type=int, default=40, help="timed steps per model")
    parser.add_argument("--warmup", type=int, default=5, help="untimed steps per model first")
    parser.add_argument("--corpus", default="auto")
    parser.add_argument("--out", type=Path, help="also write the measurement to this results file (JSON)")
    args = parser.parse_args()

    wall = time.perf_counter()
    set_seed(0)
    device = get_device(args.device)
    config = TrainConfig(corpus=args.corpus, max_steps=1, device=args.device)
    corpus = load_corpus(config.corpus, config.direction)
    tokenizer = train_bpe(corpus.source["train"] + corpus.target["train"], config.vocab_size)
    src_ids = encode(tokenizer, corpus.source["train"], config.max_sentence_tokens)
    tgt_ids = encode(tokenizer, corpus.target["train"], config.max_sentence_tokens)
    batches = token_batches([len(s) for s in src_ids], [len(t) for t in tgt_ids], config.max_tokens,
                            generator=torch.Generator().manual_seed(0))
    vocab = tokenizer.get_vocab_size()
    models = {"attnlab": build_model(config, vocab, device), "torch": TorchSeq2Seq(vocab, config, device)}
    optimizers = {name: torch.optim.Adam(m.parameters(), lr=1e-4, betas=config.betas, eps=config.adam_eps)
                  for name, m in models.items()}

    def step(name, batch):
        model, optimizer = models[name], optimizers[name]
        src, tgt_in, tgt_out = (t.to(device) for t in make_batch([src_ids[i] for i in batch], [tgt_ids[i] for i in batch]))
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        loss, n = label_smoothed_loss(model(src, tgt_in), tgt_out, config.label_smoothing)
        (loss / n).backward()
        nn.utils.clip_grad_norm_(model.parameters(), config.clip_norm)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if device.type == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - start, n

    for i in range(args.warmup):
        for name in models:
            step(name, batches[i])
    seconds = {name: [] for name in models}
    tokens = {name: 0 for name in models}
    for i in range(args.steps):
        batch = batches[args.warmup + i]
        names = list(models) if i % 2 == 0 else list(models)[::-1]
        for name in names:
            t, n = step(name, batch)
            seconds[name].append(t)
            tokens[name] += n
    rate = {name: tokens[name] / sum(seconds[name]) for name in models}
    print(f"device={device} torch={torch.__version__} threads={torch.get_num_threads()} corpus={corpus.label} "
          f"vocab={vocab} steps={args.steps} (same batches for both)")
    for name in models:
        print(f"{name:8s} {rate[name]:9.0f} target tokens/s   median step {statistics.median(seconds[name]) * 1e3:7.1f} ms")
    print(f"ratio attnlab/torch throughput = {rate['attnlab'] / rate['torch']:.3f}  (target >= 1.0)")
    if args.out:
        write_results(args.out, "benchmarks/capstone.py", None, vars(args) | {"device": str(device), "out": str(args.out)},
                      {"corpus": corpus.label, "vocab": vocab, "amp": "off (float32)",
                       "tokens_per_s": rate, "median_step_seconds": {n: statistics.median(s) for n, s in seconds.items()},
                       "ratio": rate["attnlab"] / rate["torch"], "train_config": dataclasses.asdict(config)},
                      time.perf_counter() - wall)


if __name__ == "__main__":
    main()
