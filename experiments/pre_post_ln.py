"""Post-LN (the paper) against Pre-LN, with and without learning-rate warm-up (chapter 5).

A stack of 12 encoder layers (d_model 64, 4 heads, d_ff 128) with token embeddings and sinusoidal
positions learns to reverse random sequences of 12 tokens. The same initial weights, data and
peak learning rate are used for all four runs; only the layer arrangement and the schedule
differ. The script records the loss and the gradient norm at every step and writes a JSON
results file that the chapter 5 page reads and plots.

    python experiments/pre_post_ln.py                     # the full run (a few minutes on 2 cores)
    python experiments/pre_post_ln.py --steps 5 --out /tmp/x.json   # a smoke test
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
from attnlab.layers import EncoderLayer, LayerNorm
from attnlab.positional import add_sinusoidal_positions
from attnlab.results import write_results

DEFAULT_OUT = Path(__file__).with_name("results") / "pre_post_ln.json"


class Reverser(nn.Module):
    def __init__(self, norm_first: bool, layers: int = 12, vocab: int = 16, d_model: int = 64):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        nn.init.normal_(self.embed.weight, std=d_model ** -0.5)
        self.layers = nn.ModuleList(EncoderLayer(d_model, 4, 2 * d_model, dropout=0.0, norm_first=norm_first)
                                    for _ in range(layers))
        self.final_norm = LayerNorm(d_model) if norm_first else nn.Identity()  # Pre-LN needs a last norm
        self.out = nn.Linear(d_model, vocab)

    def forward(self, tokens):
        x = add_sinusoidal_positions(self.embed(tokens))
        for layer in self.layers:
            x = layer(x)
        return self.out(self.final_norm(x))


def run(norm_first: bool, warmup: int, steps: int, lr: float, seed: int) -> dict:
    set_seed(seed)
    model = Reverser(norm_first)
    opt = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warmup) if warmup else 1.0)
    data = torch.Generator().manual_seed(seed + 1)
    losses, grad_norms = [], []
    for _ in range(steps):
        tokens = torch.randint(0, 16, (32, 12), generator=data)
        loss = F.cross_entropy(model(tokens).reshape(-1, 16), tokens.flip(1).reshape(-1))
        opt.zero_grad()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        opt.step()
        sched.step()
        losses.append(loss.item() if math.isfinite(loss.item()) else None)
        grad_norms.append(norm.item() if math.isfinite(norm.item()) else None)
    test = torch.randint(0, 16, (500, 12), generator=torch.Generator().manual_seed(seed + 2))
    with torch.no_grad():
        accuracy = (model(test).argmax(-1) == test.flip(1)).float().mean().item()
    return {"loss": losses, "grad_norm": grad_norms, "accuracy": accuracy}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    results, start = {}, time.perf_counter()
    for norm_first in (False, True):
        for warmup in (0, args.warmup):
            name = f"{'pre' if norm_first else 'post'}-LN, {'warm-up ' + str(warmup) if warmup else 'no warm-up'}"
            results[name] = run(norm_first, warmup, args.steps, args.lr, args.seed)
            results[name].update(norm_first=norm_first, warmup=warmup)
            print(f"{name:28s} final loss {results[name]['loss'][-1]}  accuracy {results[name]['accuracy']:.3f}", flush=True)
    config = {"steps": args.steps, "warmup": args.warmup, "lr": args.lr, "seed": args.seed, "layers": 12,
              "d_model": 64, "heads": 4, "d_ff": 128, "batch": 32, "length": 12, "vocab": 16}
    write_results(args.out, "experiments/pre_post_ln.py", argv, config, results, time.perf_counter() - start)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
