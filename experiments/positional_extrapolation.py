"""Length extrapolation of positional schemes (chapter 4).

The same one-layer attention model is trained, once per positional scheme, to output the
previous token of a random sequence of length 16, and is then evaluated on longer sequences.
Each query may attend only to strictly earlier positions, so the answer is always the nearest
key. Every scheme is trained once per seed (the seed sets the initial weights and the data);
the results file keeps each seed's accuracy so that the chapter 4 page can show the spread.
One thread, so that the CPU seconds in the file do not depend on other work on the machine.

    python experiments/positional_extrapolation.py                  # the full run (3 seeds, ~15 min on 1 core)
    python experiments/positional_extrapolation.py --steps 20 --seeds 0 --out /tmp/x.json   # a smoke test
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from attnlab import set_seed
from attnlab.multihead import merge_heads, split_heads
from attnlab.positional import RelativePositionBias, add_sinusoidal_positions, alibi_bias, rope
from attnlab.results import write_results

SCHEMES = ("none", "sinusoidal", "learned", "rope", "alibi", "t5")
DEFAULT_OUT = Path(__file__).with_name("results") / "positional_extrapolation.json"


class PreviousTokenModel(nn.Module):
    """Token embedding, one multi-head attention layer with a positional scheme, a read-out."""

    def __init__(self, scheme: str, vocab: int = 16, d_model: int = 32, num_heads: int = 8, max_len: int = 512):
        super().__init__()
        if scheme not in SCHEMES:
            raise ValueError(f"unknown scheme {scheme!r}; choose from {', '.join(SCHEMES)}")
        self.scheme, self.num_heads = scheme, num_heads
        self.tok = nn.Embedding(vocab, d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.read = nn.Linear(d_model, vocab)
        if scheme == "learned":  # rows beyond the training length are never updated
            self.pos = nn.Embedding(max_len, d_model)
        if scheme == "t5":
            self.rel = RelativePositionBias(num_heads, bidirectional=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        t = tokens.shape[1]
        h = self.tok(tokens)  # (B, T, D)
        if self.scheme == "sinusoidal":
            h = add_sinusoidal_positions(h)
        elif self.scheme == "learned":
            h = h + self.pos(torch.arange(t, device=tokens.device))
        q, k, v = (split_heads(x, self.num_heads) for x in self.qkv(h).chunk(3, dim=-1))  # (B, H, T, Dh)
        if self.scheme == "rope":
            q, k = rope(q), rope(k)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, T, Dh) @ (B, H, Dh, T) -> (B, H, T, T)
        if self.scheme == "alibi":
            scores = scores + alibi_bias(self.num_heads, t, device=tokens.device)
        elif self.scheme == "t5":
            scores = scores + self.rel(t)
        allowed = torch.ones(t, t, dtype=torch.bool, device=tokens.device).tril(-1)  # strictly earlier keys
        allowed[0, 0] = True  # position 0 has no earlier key; its prediction is not scored
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        return self.read(h + self.out(merge_heads(weights @ v)))  # (B, T, V)


def accuracy(model: nn.Module, tokens: torch.Tensor) -> float:
    with torch.no_grad():
        logits = model(tokens)
    return (logits[:, 1:].argmax(-1) == tokens[:, :-1]).float().mean().item()


def run(scheme: str, steps: int, lengths: list[int], train_length: int, seed: int, vocab: int = 16) -> dict:
    set_seed(seed)
    data = torch.Generator().manual_seed(seed + 1)
    model = PreviousTokenModel(scheme, vocab=vocab)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    start = time.process_time()
    for _ in range(steps):
        tokens = torch.randint(0, vocab, (64, train_length), generator=data)
        loss = F.cross_entropy(model(tokens)[:, 1:].reshape(-1, vocab), tokens[:, :-1].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    test = torch.Generator().manual_seed(seed + 2)
    acc = {str(n): accuracy(model, torch.randint(0, vocab, (100, n), generator=test)) for n in lengths}
    return {"accuracy": acc, "final_train_loss": loss.item(), "cpu_seconds": time.process_time() - start}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--train-length", type=int, default=16)
    parser.add_argument("--lengths", type=int, nargs="+", default=[16, 32, 64, 128, 256])
    parser.add_argument("--schemes", nargs="+", default=list(SCHEMES), choices=SCHEMES)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)

    results, start = {}, time.perf_counter()
    for scheme in args.schemes:
        runs = [run(scheme, args.steps, args.lengths, args.train_length, seed) for seed in args.seeds]
        results[scheme] = {"accuracy": {str(n): [r["accuracy"][str(n)] for r in runs] for n in args.lengths},
                           "final_train_loss": [r["final_train_loss"] for r in runs],
                           "cpu_seconds": [round(r["cpu_seconds"], 1) for r in runs]}
        print(scheme, {n: [round(a, 3) for a in accs] for n, accs in results[scheme]["accuracy"].items()}, flush=True)
    config = {"steps": args.steps, "train_length": args.train_length, "lengths": args.lengths, "seeds": args.seeds,
              "vocab": 16, "d_model": 32, "num_heads": 8, "batch": 64, "lr": 3e-3, "threads": args.threads}
    write_results(args.out, "experiments/positional_extrapolation.py", argv, config, results,
                  time.perf_counter() - start)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
