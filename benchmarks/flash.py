"""Peak memory and time of tiled (FlashAttention-style) attention against naive attention.

For each length n the script runs one forward pass of ``attnlab.flash.naive_attention`` (which
holds the n x n score matrix) and of ``attnlab.flash.flash_attention_forward`` (tiles of
block x block scores, online softmax) on the same q, k, v, and records the best time of
``--repeats`` alternating runs and the peak extra memory (``attnlab.profiling.peak_memory_bytes``: the CPU profiler's allocation trace,
or the CUDA allocator's peak). It prints the memory ratio tiled / naive at n = 8192 (target
<= 1/16) and the log-log slope of the tiled peak memory in n (target: linear, slope <= 1.2).
On CUDA it also times the Triton kernel (``attnlab.flash_triton``) against
``F.scaled_dot_product_attention`` in float16, including lengths that are not powers of two.

    python benchmarks/flash.py                       # n = 1k..16k, 1 head, Dh = 64, 512 x 512 tiles, auto device
    python benchmarks/flash.py --lengths 1024 2048 --no-write
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from attnlab import get_device, set_seed
from attnlab.flash import flash_attention_forward, naive_attention
from attnlab.profiling import median_time, peak_memory_bytes

ROOT = Path(__file__).resolve().parents[1]


def tiled_vs_naive(n: int, device, batch: int, heads: int, dh: int, block: int, repeats: int,
                   check_up_to: int = 4096) -> dict:
    """Time and peak extra memory of one forward pass of each, at length ``n``.

    Up to ``check_up_to`` the two outputs are also compared (``max_abs_diff``).
    """
    q, k, v = (torch.randn(batch, heads, n, dh, device=device) for _ in range(3))
    naive = lambda: naive_attention(q, k, v)  # noqa: E731
    tiled = lambda: flash_attention_forward(q, k, v, block_q=block, block_k=block)  # noqa: E731
    row = {"n": n}
    if n <= check_up_to:
        row["max_abs_diff"] = (tiled()[0] - naive()).abs().max().item()
    for name, fn in (("naive", naive), ("tiled", tiled)):
        row[f"{name}_peak_bytes"] = peak_memory_bytes(fn, device)  # also serves as the warm-up run
    best = {"naive": float("inf"), "tiled": float("inf")}
    for _ in range(repeats):  # alternate the two and keep the best: load on a shared machine hits both alike
        for name, fn in (("naive", naive), ("tiled", tiled)):
            best[name] = min(best[name], median_time(fn, device, repeats=1, warmup=0))
    row["naive_seconds"], row["tiled_seconds"] = best["naive"], best["tiled"]
    row["memory_ratio"] = row["tiled_peak_bytes"] / row["naive_peak_bytes"]
    return row


def triton_vs_sdpa(n: int, device, batch: int, heads: int, dh: int, dtype, repeats: int,
                   block: int = 64, causal: bool = False) -> dict:
    """Median forward time of the Triton kernel and of ``F.scaled_dot_product_attention``.

    Written for CUDA; the tests run it on the CPU under ``TRITON_INTERPRET=1`` with tiny sizes.
    """
    from attnlab.flash_triton import flash_attention_triton

    q, k, v = (torch.randn(batch, heads, n, dh, device=device, dtype=dtype) for _ in range(3))
    ours = lambda: flash_attention_triton(q, k, v, causal, block_m=block, block_n=block)[0]  # noqa: E731
    theirs = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # noqa: E731
    err = (ours().float() - theirs().float()).abs().max().item()
    t_ours = median_time(ours, device, repeats=repeats)
    t_theirs = median_time(theirs, device, repeats=repeats)
    flops = 4.0 * batch * heads * n * n * dh / (2 if causal else 1)
    return {"n": n, "causal": causal, "max_abs_diff": err, "triton_seconds": t_ours, "sdpa_seconds": t_theirs,
            "triton_tflops": flops / t_ours / 1e12, "sdpa_tflops": flops / t_theirs / 1e12}


def log_slope(xs, ys) -> float:
    """Least-squares slope of log y against log x."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="auto")
    parser.add_argument("--lengths", type=int, nargs="+", default=[1024, 2048, 4096, 8192, 16384])
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--heads", type=int, default=1)
    parser.add_argument("--head-dim", type=int, default=64)
    parser.add_argument("--block", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print only, do not write a results file")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    set_seed(0)
    device = get_device(args.device)
    lines = [f"device={device} torch={torch.__version__} threads={torch.get_num_threads()} "
             f"B={args.batch} H={args.heads} Dh={args.head_dim} block={args.block} float32 forward, "
             f"best of {args.repeats} runs"]
    print(lines[0])
    rows = []
    for n in args.lengths:
        row = tiled_vs_naive(n, device, args.batch, args.heads, args.head_dim, args.block, args.repeats)
        rows.append(row)
        line = (f"n={n:6d}  naive {row['naive_seconds'] * 1e3:9.1f} ms {row['naive_peak_bytes'] / 2**20:9.1f} MiB"
                f"  | tiled {row['tiled_seconds'] * 1e3:9.1f} ms {row['tiled_peak_bytes'] / 2**20:8.2f} MiB"
                f"  | memory tiled/naive = 1/{1 / row['memory_ratio']:.0f}"
                + (f"  max|diff| {row['max_abs_diff']:.1e}" if "max_abs_diff" in row else ""))
        lines.append(line)
        print(line, flush=True)
    summary = {}
    at_8k = [r for r in rows if r["n"] == 8192]
    if at_8k:
        ratio = at_8k[0]["memory_ratio"]
        summary["memory_ratio_8192"] = ratio
        summary["memory_target_met"] = ratio <= 1 / 16
        lines.append(f"n=8192: tiled uses 1/{1 / ratio:.0f} of naive's extra memory "
                     f"(target <= 1/16: {'met' if ratio <= 1 / 16 else 'NOT met'})")
    if len(rows) >= 2:
        ns = [r["n"] for r in rows]
        summary["tiled_memory_slope"] = log_slope(ns, [r["tiled_peak_bytes"] for r in rows])
        summary["naive_memory_slope"] = log_slope(ns, [r["naive_peak_bytes"] for r in rows])
        summary["linear_growth"] = summary["tiled_memory_slope"] <= 1.2
        lines.append(f"peak memory grows like n^{summary['tiled_memory_slope']:.2f} (tiled) and "
                     f"n^{summary['naive_memory_slope']:.2f} (naive); linear growth: "
                     f"{'yes' if summary['linear_growth'] else 'NO'}")
    for line in lines[len(rows) + 1:]:
        print(line)

    gpu_rows = []
    if device.type == "cuda":
        from attnlab.flash_triton import why_unavailable

        reason = why_unavailable()
        if reason:
            lines.append(f"Triton skipped: {reason}")
            print(lines[-1])
        else:
            # powers of two, multiples of 128 that are not (1152, 1280, 1536, 3072), of 64 only (1088),
            # and lengths that are neither (1000, 1100, 2000, 2100): which one, if any, costs time?
            gpu_lengths = sorted(set(args.lengths) | {1000, 1088, 1100, 1152, 1280, 1536, 2000, 2100, 3072})
            for causal in (False, True):
                for n in gpu_lengths:
                    r = triton_vs_sdpa(n, device, 4, 16, args.head_dim, torch.float16, 20, causal=causal)
                    gpu_rows.append(r)
                    lines.append(f"fp16 B=4 H=16 n={n:6d} causal={causal!s:5}  triton {r['triton_seconds'] * 1e3:8.3f} ms "
                                 f"({r['triton_tflops']:6.1f} TFLOP/s)  sdpa {r['sdpa_seconds'] * 1e3:8.3f} ms "
                                 f"({r['sdpa_tflops']:6.1f} TFLOP/s)  max|diff| {r['max_abs_diff']:.1e}")
                    print(lines[-1], flush=True)
    else:
        lines.append("no CUDA device: the Triton kernel vs F.scaled_dot_product_attention timing is skipped")
        print(lines[-1])

    wall = time.perf_counter() - start
    record = {"config": vars(args) | {"device": str(device)}, "rows": rows, "summary": summary,
              "gpu_rows": gpu_rows, "printed": lines}
    if not args.no_write:
        from attnlab.results import write_results

        path = ROOT / "experiments" / "results" / f"flash_{'cuda' if device.type == 'cuda' else 'cpu'}.json"
        write_results(path, "benchmarks/flash.py", argv, record["config"],
                      {"rows": rows, "summary": summary, "gpu_rows": gpu_rows, "printed": lines}, wall)
        print(f"wrote {path.relative_to(ROOT)} ({wall:.0f} s)")
    return record


if __name__ == "__main__":
    main()
