"""Training throughput on a CPU: one process using every core against DDP over several processes of
one thread each (`attnlab-translate train --processes N`), on the same model, batches and steps.

Runs `attnlab-translate train` (the defaults: the capstone's model and 4,000-token batches) for
--steps steps in each layout, alternating the layouts --rounds times so that load on a shared
machine hits both alike, and prints target tokens per second of each and the ratio
processes / one process. The global batch is the same in both layouts (DDP splits each batch by
sentences), so the updates are the same too; only the speed differs.

    ATTNLAB_DATA=../shared/data python benchmarks/cpu_processes.py --steps 30 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from attnlab.results import hardware_description, write_results
from attnlab.translate.train import TrainConfig


def run(layout: int, steps: int, corpus: str, out: Path) -> float:
    """Target tokens per second of one short training run with ``layout`` processes (1: all threads)."""
    cores = len(os.sched_getaffinity(0))
    env = {**os.environ, "OMP_NUM_THREADS": str(cores)} if layout == 1 else dict(os.environ)
    cmd = [sys.executable, "-m", "attnlab.translate", "train", "--out", str(out), "--max-steps", str(steps),
           "--corpus", corpus, "--device", "cpu", "--no-progress", "--snapshot-minutes", "0", "--log-every", "10",
           "--processes", str(layout)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode:
        raise SystemExit(f"cpu_processes: training failed:\n{proc.stderr[-3000:]}")
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    # the first interval holds the one-off costs (allocator, first allreduce); the others are steady
    rates = [r["tokens_per_s"] for r in log if "tokens_per_s" in r and "step" in r][1:]
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--corpus", default="auto")
    parser.add_argument("--out", type=Path, help="also write the measurement to this results file (JSON)")
    args = parser.parse_args()
    wall = time.perf_counter()
    rates: dict[str, list[float]] = {"one process": [], f"{args.processes} processes": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.rounds):
            for layout in ((1, args.processes) if i % 2 == 0 else (args.processes, 1)):
                name = "one process" if layout == 1 else f"{args.processes} processes"
                rates[name].append(run(layout, args.steps, args.corpus, Path(tmp) / f"{i}-{layout}"))
                print(f"round {i + 1}: {name:12s} {rates[name][-1]:8.0f} target tokens/s", file=sys.stderr)
    median = {name: statistics.median(r) for name, r in rates.items()}
    ratio = median[f"{args.processes} processes"] / median["one process"]
    print(hardware_description())
    for name, value in median.items():
        print(f"{name:12s} {value:8.0f} target tokens/s (median of {args.rounds})")
    print(f"ratio {args.processes} processes / one process = {ratio:.2f}")
    if args.out:
        write_results(args.out, "benchmarks/cpu_processes.py", None, vars(args) | {"out": str(args.out)},
                      {"tokens_per_s": rates, "median": median, "ratio": ratio,
                       "max_tokens": TrainConfig(max_steps=1).max_tokens}, time.perf_counter() - wall)


if __name__ == "__main__":
    main()
