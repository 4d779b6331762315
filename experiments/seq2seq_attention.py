"""The fixed-context bottleneck of RNN sequence-to-sequence models, and Bahdanau attention (chapter 1).

Two GRU encoder-decoders of the same size learn to copy random token sequences of length 4 to 24.
One decoder sees the source only through the encoder's last hidden state (a fixed-size context
vector); the other attends over all encoder states at every step (additive attention). Both are
trained with the same data and steps and then tested, per source length, on token accuracy of
greedy decoding. The script writes a JSON results file, with the attention weights of one test
example, that the chapter 1 page reads and plots.

    python experiments/seq2seq_attention.py                    # the full run (a few minutes on 2 cores)
    python experiments/seq2seq_attention.py --steps 3 --out /tmp/x.json   # a smoke test
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from attnlab import set_seed
from attnlab.results import write_results
from attnlab.rnn import AdditiveAttention

PAD, BOS, VOCAB = 0, 1, 12
DEFAULT_OUT = Path(__file__).with_name("results") / "seq2seq_attention.json"


class Seq2SeqGRU(nn.Module):
    """GRU encoder and decoder; with ``attention`` the decoder reads all encoder states."""

    def __init__(self, attention: bool, hidden: int = 64, emb: int = 32):
        super().__init__()
        self.attention = attention
        self.embed = nn.Embedding(VOCAB, emb, padding_idx=PAD)
        self.encoder = nn.GRU(emb, hidden, batch_first=True)
        self.decoder = nn.GRUCell(emb + (hidden if attention else 0), hidden)
        self.attend = AdditiveAttention(hidden, hidden, hidden) if attention else None
        self.out = nn.Linear(hidden * (2 if attention else 1), VOCAB)

    def forward(self, src, lengths, tgt_in):
        """Teacher forcing: logits for every target position, and the attention weights."""
        states, _ = self.encoder(self.embed(src))  # (B, S, H)
        allowed = torch.arange(src.shape[1])[None, :] < lengths[:, None]  # (B, S)
        h = states[torch.arange(src.shape[0]), lengths - 1]  # the last real state: the context vector
        logits, weights = [], []
        for t in range(tgt_in.shape[1]):
            e = self.embed(tgt_in[:, t])
            if self.attention:
                context, w = self.attend(h, states, allowed)  # (B, H), (B, S)
                h = self.decoder(torch.cat([e, context], dim=-1), h)
                logits.append(self.out(torch.cat([h, context], dim=-1)))
                weights.append(w)
            else:
                h = self.decoder(e, h)
                logits.append(self.out(h))
        return torch.stack(logits, dim=1), (torch.stack(weights, dim=1) if weights else None)

    @torch.no_grad()
    def greedy(self, src, lengths, steps):
        tokens = torch.full((src.shape[0], 1), BOS)
        for _ in range(steps):
            logits, weights = self(src, lengths, tokens)
            tokens = torch.cat([tokens, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
        return tokens[:, 1:], weights


def batch(n, min_len, max_len, generator):
    lengths = torch.randint(min_len, max_len + 1, (n,), generator=generator)
    src = torch.randint(2, VOCAB, (n, max_len), generator=generator)
    src[torch.arange(max_len)[None, :] >= lengths[:, None]] = PAD
    return src, lengths


def train(attention: bool, steps: int, max_len: int, seed: int) -> Seq2SeqGRU:
    set_seed(seed)
    data = torch.Generator().manual_seed(seed + 1)
    model = Seq2SeqGRU(attention)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(steps):
        src, lengths = batch(64, 4, max_len, data)
        tgt_in = torch.cat([torch.full((64, 1), BOS), src[:, :-1]], dim=1)
        logits, _ = model(src, lengths, tgt_in)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), src.reshape(-1), ignore_index=PAD)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    return model


def evaluate(model: Seq2SeqGRU, lengths: list[int], seed: int) -> dict[str, float]:
    test = torch.Generator().manual_seed(seed + 2)
    acc = {}
    for n in lengths:
        src, lens = batch(200, n, n, test)
        pred, _ = model.greedy(src, lens, n)
        acc[str(n)] = (pred == src).float().mean().item()
    return acc


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--max-len", type=int, default=24)
    parser.add_argument("--lengths", type=int, nargs="+", default=[4, 8, 12, 16, 20, 24])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    start, results = time.perf_counter(), {}
    example_src, example_len = batch(1, 12, 12, torch.Generator().manual_seed(99))
    for name, attention in (("fixed context", False), ("additive attention", True)):
        t0 = time.perf_counter()
        model = train(attention, args.steps, args.max_len, args.seed)
        results[name] = {"accuracy": evaluate(model, args.lengths, args.seed), "train_seconds": round(time.perf_counter() - t0, 1)}
        if attention:
            _, weights = model.greedy(example_src, example_len, 12)
            results[name]["example"] = {"source": example_src[0].tolist()[:12], "weights": weights[0].tolist()}
        print(name, {n: round(a, 3) for n, a in results[name]["accuracy"].items()}, flush=True)
    config = {"steps": args.steps, "train_lengths": [4, args.max_len], "lengths": args.lengths, "seed": args.seed,
              "hidden": 64, "embedding": 32, "vocab": VOCAB, "batch": 64, "lr": 3e-3}
    write_results(args.out, "experiments/seq2seq_attention.py", argv, config, results, time.perf_counter() - start)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
