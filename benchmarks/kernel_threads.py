"""CPU that a grading kernel spends on one chapter's hidden tests with 1 thread and with 2.

    python benchmarks/kernel_threads.py                       # chapter 1's model answer, 3 rounds
    python benchmarks/kernel_threads.py --chapter 05-encoder-decoder --rounds 2

Each run is a fresh Python process that imports torch, sets the thread count, and runs every cell of the chapter's
source notebook with the model answers filled in, test cells as the grader runs them (tests/cellrun.py: the
settings reset and check around each). It prints the process's own CPU time (all its threads) and wall time.
Rounds alternate 1 and 2 threads, so load on a shared machine falls on both alike; the script prints the ratio of
the median CPU with 2 threads to the median with 1, and the same for wall time, measured in this run.

Why it matters: the hidden tests compute on small tensors, so a second thread shortens little; torch's OpenMP
pool (libgomp) keeps its idle threads spinning for a while after each parallel region, which costs CPU that no
other kernel can use. The grader therefore never gives a kernel more threads than its own environment allows
(``attnlab.instructor.grading.kernel_threads``: ``OMP_NUM_THREADS`` and the like cap each kernel's share of the
cores), and the test suite, which sets them to each test process's share, grades with one thread a kernel.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ONE_RUN = r"""
import json, os, resource, sys, time
sys.path.insert(0, {tests!r})
import torch
torch.set_num_threads({threads})
import cellrun
from grading import ROOT, solution_code
cells = cellrun.notebook_cells(ROOT / "solutions" / {chapter!r} / "exercises.ipynb", solution_code({chapter!r}))
namespace = {{"__name__": "__main__"}}
start, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
failed = [gid for gid, code, points in cells if cellrun.run_cell(namespace, gid, code, points)[0] and points]
end, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - wall
cpu = end.ru_utime + end.ru_stime - start.ru_utime - start.ru_stime
print(json.dumps({{"cpu": cpu, "wall": wall, "failed": failed, "threads": torch.get_num_threads()}}))
"""


def run(chapter: str, threads: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    code = ONE_RUN.format(tests=str(ROOT / "tests"), threads=threads, chapter=chapter)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"a run failed:\n{proc.stderr[-3000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if out["failed"]:
        raise SystemExit(f"the model answer failed {out['failed']} with {threads} thread(s): nothing to compare")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chapter", default="01-rnn-motivation")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    print(f"{cores} cores, load average before {os.getloadavg()[0]:.2f}; chapter {args.chapter}, {args.rounds} rounds")
    if cores < 2:
        raise SystemExit("one core: a second thread has no core of its own here, nothing to measure")
    found: dict[int, list[dict]] = {1: [], 2: []}
    for _ in range(args.rounds):
        for threads in (1, 2):
            out = run(args.chapter, threads)
            found[threads].append(out)
            print(f"  {threads} thread(s): CPU {out['cpu']:.2f} s, wall {out['wall']:.2f} s")
    cpu = {t: statistics.median(o["cpu"] for o in runs) for t, runs in found.items()}
    wall = {t: statistics.median(o["wall"] for o in runs) for t, runs in found.items()}
    print(f"median CPU: 1 thread {cpu[1]:.2f} s, 2 threads {cpu[2]:.2f} s; ratio 2/1 = {cpu[2] / cpu[1]:.2f}")
    print(f"median wall: 1 thread {wall[1]:.2f} s, 2 threads {wall[2]:.2f} s; ratio 2/1 = {wall[2] / wall[1]:.2f}")
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
