"""The ladder from the 2017 decoder to a Llama-style model (chapter 9), one change per row.

Each row is trained with `attnlab.lm.train` (the shared loop) for the same budget of PROCESS CPU
seconds (time.process_time, one thread), which stays fair when other jobs share the machine;
then its validation and test perplexity, training tokens per CPU-second, parameters and KV-cache
bytes per token are recorded, with the command, hardware and date, in
experiments/results/modern_lm.json. Generation speed with and without the KV cache is measured on
the last row.

    python experiments/modern_lm.py --cpu-minutes 3 --seeds 0          # the committed run
    python experiments/modern_lm.py --cpu-minutes 0.05 --rows 2017 gqa --out /tmp/r.json   # a smoke test
    python experiments/modern_lm.py --rows swiglu rope --jobs 2 ...    # rows in parallel processes
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import torch

from attnlab.lm.model import kv_bytes_per_token, lm_parameter_count
from attnlab.results import write_results

# start-ladder
# each row changes one thing of the row before it (SwiGLU comes without biases, as in Llama)
LADDER = {
    "2017": dict(norm_first=False, norm="layernorm", ffn="relu", position="sinusoidal", bias=True),
    "pre-ln": dict(norm_first=True, norm="layernorm", ffn="relu", position="sinusoidal", bias=True),
    "rmsnorm": dict(norm_first=True, norm="rmsnorm", ffn="relu", position="sinusoidal", bias=True),
    "swiglu": dict(norm_first=True, norm="rmsnorm", ffn="swiglu", position="sinusoidal", bias=False),
    "rope": dict(norm_first=True, norm="rmsnorm", ffn="swiglu", position="rope", bias=False),
    "gqa": dict(norm_first=True, norm="rmsnorm", ffn="swiglu", position="rope", bias=False, num_kv_heads=2),
}
# shared by every row
BASE = dict(corpus="auto", vocab_size=4000, d_model=128, num_layers=4, num_heads=4, dropout=0.0, max_tokens=1000,
            peak_lr=2e-3, warmup_steps=100, clock="process", device="cpu", snapshot_minutes=None, log_every=50)
# end-ladder
RESULTS = Path(__file__).resolve().parent / "results" / "modern_lm.json"


def run_row(name: str, seed: int, cpu_minutes: float, run_dir: str, overrides: dict) -> dict:
    """Train one row for ``cpu_minutes`` of this process's CPU time on one thread; evaluate it."""
    torch.set_num_threads(1)
    from attnlab.lm.train import LMTrainConfig, evaluate, load_model, train

    config = LMTrainConfig(**{**BASE, **overrides}, **LADDER[name], seed=seed, minutes=cpu_minutes)
    out = Path(run_dir) / f"{name}-seed{seed}"
    summary = train(config, out, progress=False)
    result = evaluate(out / "checkpoint.pt")
    model, _, _ = load_model(out / "checkpoint.pt")
    arch = model.config
    return {"row": name, "seed": seed, "changes": LADDER[name], "parameters": lm_parameter_count(arch),
            "kv_bytes_per_token_fp32": kv_bytes_per_token(arch, 4), "steps": summary["steps"],
            "epochs": summary["epochs"], "train_cpu_seconds": summary["train_seconds"],
            "tokens_per_cpu_second": summary["tokens_per_s"], "last_train_loss": summary["last_loss"], **result}


def generation_speed(checkpoint: Path, new_tokens: int, prompt_tokens: int) -> dict:
    """Seconds per generated token with and without the KV cache (greedy, batch 1, one thread, best of 3)."""
    from attnlab.lm.generate import seconds_per_token
    from attnlab.lm.train import load_model

    torch.set_num_threads(1)
    model, _, _ = load_model(checkpoint)
    prompt = torch.randint(4, model.config.vocab_size, (1, prompt_tokens), generator=torch.Generator().manual_seed(0))
    with torch.inference_mode():
        cached = seconds_per_token(model, prompt, new_tokens, use_cache=True)
        uncached = seconds_per_token(model, prompt, new_tokens, use_cache=False)
    return {"prompt_tokens": prompt_tokens, "new_tokens": new_tokens, "ms_per_token_cache": round(cached * 1e3, 3),
            "ms_per_token_no_cache": round(uncached * 1e3, 3), "speed_up": round(uncached / cached, 2),
            "clock": "wall (perf_counter), best of 3"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu-minutes", type=float, default=3.0, help="training budget per row, process CPU minutes")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--rows", nargs="+", default=list(LADDER), choices=list(LADDER))
    parser.add_argument("--jobs", type=int, default=1, help="rows trained at once, each in its own process")
    parser.add_argument("--run-dir", type=Path, default=None, help="keep the runs here (default: a temporary folder)")
    parser.add_argument("--gen-tokens", type=int, default=48, help="tokens generated for the speed measurement")
    parser.add_argument("--out", type=Path, default=RESULTS)
    for name in ("corpus", "vocab_size", "d_model", "num_layers"):  # smaller or offline runs (tests)
        parser.add_argument("--" + name.replace("_", "-"), type=type(BASE[name]), default=None,
                            help=f"override the shared {name} (default: {BASE[name]})")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    run_dir = args.run_dir or Path(tempfile.mkdtemp(prefix="modern_lm-"))
    start = time.perf_counter()
    overrides = {n: getattr(args, n) for n in ("corpus", "vocab_size", "d_model", "num_layers")
                 if getattr(args, n) is not None}
    jobs = [(name, seed) for seed in args.seeds for name in args.rows]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_row, name, seed, args.cpu_minutes, str(run_dir), overrides) for name, seed in jobs]
        rows = []
        for future in futures:
            rows.append(future.result())
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    last = run_dir / f"{args.rows[-1]}-seed{args.seeds[0]}" / "checkpoint.pt"
    results = {"rows": rows, "budget": f"{args.cpu_minutes} process CPU minutes per row (time.process_time), "
               "torch.set_num_threads(1)", "seeds": args.seeds, "base": {**BASE, **overrides},
               "corpus": rows[0]["corpus"], "generation": {args.rows[-1]: generation_speed(last, args.gen_tokens, 16)},
               "note": f"{len(args.seeds)} seed(s) per row; differences smaller than the spread between seeds "
                       "are not evidence of an effect"}
    config = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()} | {"run_dir": str(run_dir)}
    write_results(args.out, "experiments/modern_lm.py", sys.argv[1:] if argv is None else argv, config, results,
                  time.perf_counter() - start)
    print(json.dumps({r["row"]: r["val_perplexity"] for r in rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
