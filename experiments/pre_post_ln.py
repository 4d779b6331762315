"""Post-LN (the paper) against Pre-LN, with and without warm-up, and two ablations (chapter 5).

A stack of 12 encoder layers (d_model 64, 4 heads, d_ff 128) with token embeddings and sinusoidal
positions learns to reverse random sequences of 12 tokens. Within one seed every arm starts from
the same initial weights and sees the same data at the same peak learning rate; only the layer
arrangement and the schedule differ. Arms:

- Post-LN and Pre-LN, each without warm-up and with a linear warm-up;
- "no residual": Post-LN with the residual connections removed, ``x = norm(sublayer(x))``;
- "no LayerNorm": Post-LN with the LayerNorms removed, ``x = x + sublayer(x)``.

The two ablations use the warm-up (the setting in which Post-LN trains). Every arm runs for each
seed; the script records the loss and gradient norm at every step and the test accuracy, and
writes a JSON results file that the chapter 5 page reads and plots. One thread, so that the
timing in the file does not depend on other work on the machine's cores.

    python experiments/pre_post_ln.py                     # the full run (3 seeds, ~15 min on 1 core)
    python experiments/pre_post_ln.py --steps 5 --seeds 0 --out /tmp/x.json   # a smoke test
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


class AblatedPostLN(EncoderLayer):
    """The Post-LN layer with its residual connections or its LayerNorms removed."""

    def __init__(self, *args, residual: bool = True, layernorm: bool = True, **kwargs):
        super().__init__(*args, norm_first=False, **kwargs)
        self.residual = residual
        if not layernorm:
            self.norm1, self.norm2 = nn.Identity(), nn.Identity()

    def forward(self, x, allowed=None):
        keep = 1.0 if self.residual else 0.0
        x = self.norm1(keep * x + self.dropout1(self.self_attn(x, allowed=allowed)[0]))
        return self.norm2(keep * x + self.dropout2(self.ff(x)))


class Reverser(nn.Module):
    def __init__(self, norm_first: bool, layers: int = 12, vocab: int = 16, d_model: int = 64,
                 residual: bool = True, layernorm: bool = True):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        nn.init.normal_(self.embed.weight, std=d_model ** -0.5)
        if residual and layernorm:
            make = lambda: EncoderLayer(d_model, 4, 2 * d_model, dropout=0.0, norm_first=norm_first)
        else:
            make = lambda: AblatedPostLN(d_model, 4, 2 * d_model, dropout=0.0, residual=residual, layernorm=layernorm)
        self.layers = nn.ModuleList(make() for _ in range(layers))
        self.final_norm = LayerNorm(d_model) if norm_first else nn.Identity()  # Pre-LN needs a last norm
        self.out = nn.Linear(d_model, vocab)

    def forward(self, tokens):
        x = add_sinusoidal_positions(self.embed(tokens))
        for layer in self.layers:
            x = layer(x)
        return self.out(self.final_norm(x))


def run(norm_first: bool, warmup: int, steps: int, lr: float, seed: int,
        residual: bool = True, layernorm: bool = True) -> dict:
    set_seed(seed)
    model = Reverser(norm_first, residual=residual, layernorm=layernorm)
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
        losses.append(round(loss.item(), 4) if math.isfinite(loss.item()) else None)
        grad_norms.append(float(f"{norm.item():.4g}") if math.isfinite(norm.item()) else None)
    test = torch.randint(0, 16, (500, 12), generator=torch.Generator().manual_seed(seed + 2))
    with torch.no_grad():
        accuracy = (model(test).argmax(-1) == test.flip(1)).float().mean().item()
    return {"loss": losses, "grad_norm": grad_norms, "accuracy": accuracy}


def arms(warmup: int) -> dict:
    """name -> keyword arguments of :func:`run` (besides steps, lr and seed)."""
    table = {}
    for norm_first in (False, True):
        for w in (0, warmup):
            name = f"{'pre' if norm_first else 'post'}-LN, {'warm-up ' + str(w) if w else 'no warm-up'}"
            table[name] = {"norm_first": norm_first, "warmup": w, "residual": True, "layernorm": True}
    table[f"no residual, warm-up {warmup}"] = {"norm_first": False, "warmup": warmup, "residual": False, "layernorm": True}
    table[f"no LayerNorm, warm-up {warmup}"] = {"norm_first": False, "warmup": warmup, "residual": True, "layernorm": False}
    return table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if args.warmup < 1:
        parser.error("--warmup must be at least 1 (the no-warm-up arms are always included)")
    torch.set_num_threads(args.threads)

    results, start, cpu_start = {}, time.perf_counter(), time.process_time()
    for name, kw in arms(args.warmup).items():
        runs = [run(steps=args.steps, lr=args.lr, seed=s, **kw) for s in args.seeds]
        results[name] = {**kw, "seeds": args.seeds, "accuracy": [r["accuracy"] for r in runs],
                         "loss": [r["loss"] for r in runs], "grad_norm": [r["grad_norm"] for r in runs]}
        print(f"{name:28s} accuracy per seed {[round(a, 3) for a in results[name]['accuracy']]}", flush=True)
    config = {"steps": args.steps, "warmup": args.warmup, "lr": args.lr, "seeds": args.seeds, "layers": 12,
              "d_model": 64, "heads": 4, "d_ff": 128, "batch": 32, "length": 12, "vocab": 16,
              "threads": args.threads, "cpu_seconds": round(time.process_time() - cpu_start, 1)}
    write_results(args.out, "experiments/pre_post_ln.py", argv, config, results, time.perf_counter() - start)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
