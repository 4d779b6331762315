"""Training throughput on a CPU, two ways of running the same model, batches and steps.

--compare processes (the default): one process using every core against DDP over several processes
of one thread each (`attnlab-translate train --processes N`). The global batch is the same in both
layouts (DDP splits each batch by sentences), so the updates are the same too; only the speed differs.

--compare compile: the eager model against `torch.compile` (`attnlab-translate train --compile`), one
process each with --threads threads. Besides the steady rate (the ratio), it reports the seconds the
whole run took in each way, which include the compilation: a short run pays it in full.

Runs `attnlab-translate train` (the defaults) for --steps steps in each layout, alternating the
layouts --rounds times so that load on a shared machine hits both alike, and prints target tokens
per second of each and the ratio second / first. With --clock process the rates count CPU seconds,
which load on the machine does not change.

    ATTNLAB_DATA=../shared/data python benchmarks/cpu_processes.py --steps 30 --rounds 2
    ATTNLAB_DATA=../shared/data python benchmarks/cpu_processes.py --compare compile --threads 1 --clock process
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

import torch

from attnlab.results import hardware_description, write_results
from attnlab.translate.train import TrainConfig


def run(layout: int, steps: int, corpus: str, out: Path, extra: tuple[str, ...] = (), threads: int | None = None,
        clock: str = "wall") -> tuple[float, float]:
    """(steady target tokens per second, seconds the whole run took) of one short training run with
    ``layout`` processes (1: ``threads`` threads, by default all cores) and the extra train options."""
    threads = threads or len(os.sched_getaffinity(0))
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)} if layout == 1 else dict(os.environ)
    cmd = [sys.executable, "-m", "attnlab.translate", "train", "--out", str(out), "--max-steps", str(steps),
           "--corpus", corpus, "--device", "cpu", "--no-progress", "--snapshot-minutes", "0", "--log-every", "10",
           "--processes", str(layout), "--clock", clock, *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode:
        raise SystemExit(f"cpu_processes: training failed:\n{proc.stderr[-3000:]}")
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    # the first interval holds the one-off costs (allocator, first allreduce, compilation); the others are steady
    rates = [r["tokens_per_s"] for r in log if "tokens_per_s" in r and "step" in r][1:]
    if not rates:
        raise SystemExit(f"cpu_processes: --steps {steps} leaves no steady interval to measure; use at least 20")
    end = next(r for r in reversed(log) if r.get("event") == "end")
    return statistics.median(rates), end["train_seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", choices=("processes", "compile"), default="processes")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--processes", type=int, default=2, help="--compare processes: DDP processes")
    parser.add_argument("--threads", type=int, default=None, help="threads of a one-process run (default: all cores)")
    parser.add_argument("--clock", choices=("wall", "process"), default="wall")
    parser.add_argument("--corpus", default="auto")
    parser.add_argument("--out", type=Path, help="also write the measurement to this results file (JSON)")
    args = parser.parse_args()
    if args.compare == "compile" and args.threads is not None and args.threads < 1:
        parser.error("--threads must be at least 1")
    # the results' hardware line names this process's threads: those of the one-process runs
    torch.set_num_threads(args.threads or len(os.sched_getaffinity(0)))
    wall = time.perf_counter()
    if args.compare == "processes":
        ways = {"one process": (1, ()), f"{args.processes} processes": (args.processes, ())}
    else:
        ways = {"eager": (1, ()), "compiled": (1, ("--compile",))}
    names = list(ways)
    rates: dict[str, list[float]] = {name: [] for name in names}
    seconds: dict[str, list[float]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.rounds):
            for name in (names if i % 2 == 0 else names[::-1]):
                layout, extra = ways[name]
                rate, took = run(layout, args.steps, args.corpus, Path(tmp) / f"{i}-{names.index(name)}", extra,
                                 args.threads, args.clock)
                rates[name].append(rate)
                seconds[name].append(took)
                print(f"round {i + 1}: {name:12s} {rate:8.0f} target tokens/s, {took:6.1f} s for {args.steps} steps",
                      file=sys.stderr)
    median = {name: statistics.median(r) for name, r in rates.items()}
    ratio = median[names[1]] / median[names[0]]
    print(hardware_description())
    for name, value in median.items():
        print(f"{name:12s} {value:8.0f} target tokens/s (median of {args.rounds}), "
              f"{statistics.median(seconds[name]):6.1f} s for the {args.steps} steps ({args.clock} clock)")
    print(f"ratio {names[1]} / {names[0]} = {ratio:.2f}")
    if args.out:
        write_results(args.out, "benchmarks/cpu_processes.py", None, vars(args) | {"out": str(args.out)},
                      {"tokens_per_s": rates, "median": median, "ratio": ratio, "run_seconds": seconds,
                       "max_tokens": TrainConfig(max_steps=1).max_tokens}, time.perf_counter() - wall)


if __name__ == "__main__":
    main()
