"""Short runs of the capstone translation model, one setting each, for issue #21's search.

Each row trains `attnlab.translate.train` with the defaults of `attnlab-translate train` and the row's
overrides, for a budget of --minutes on the --clock, then scores greedy sacreBLEU on the validation
split (never on the test split, which is kept for the final runs). A row is written to its own file
in --out-dir as soon as it ends, so rows can run in separate processes (one thread each, side by
side, on the process clock: each row's budget counts only its own CPU time); --table gathers the
rows into one results file.

    python experiments/budget_search.py --row base --row lr2e-3:peak_lr=2e-3 --minutes 8 --threads 1
    python experiments/budget_search.py --table --out experiments/results/budget_search.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import torch

from attnlab.results import hardware_description, write_results
from attnlab.translate.data import load_corpus
from attnlab.translate.evaluation import corpus_bleu, translate
from attnlab.training_cli import CliError, parse_overrides
from attnlab.translate.train import TrainConfig, load_model, train

ROWS = Path("runs/capstone-search")


def parse_row(text: str) -> tuple[str, dict]:
    """``name:key=value,key=value`` -> the name and TrainConfig overrides (values typed as the fields)."""
    name, _, rest = text.partition(":")
    try:
        return name, parse_overrides(rest, TrainConfig)
    except CliError as exc:
        raise SystemExit(f"budget_search: row {text!r}: {exc}") from exc


def run_row(name: str, overrides: dict, args) -> dict:
    config = TrainConfig(**{"corpus": args.corpus, "snapshot_minutes": 0, "device": "cpu", **overrides},
                         minutes=args.minutes, clock=args.clock, seed=args.seed)
    run = args.runs / name
    start = time.perf_counter()
    summary = train(config, run, progress=False)
    model, tokenizer, ckpt = load_model(run / "checkpoint.pt")
    corpus = load_corpus(ckpt["corpus_name"], config.direction)
    sources, references = corpus.source["val"][:args.limit], corpus.target["val"][:args.limit]
    decode_start = time.perf_counter()
    with torch.inference_mode():
        hyps = translate(model, tokenizer, sources, 1)
    bleu, signature = corpus_bleu(hyps, references)
    return {"setting": name, "overrides": overrides, "config": dataclasses.asdict(config),
            "minutes": args.minutes, "clock": args.clock,
            "threads": torch.get_num_threads(), "seed": args.seed, "split": "val", "sentences": len(sources), "greedy_bleu": round(bleu, 2),
            "signature": signature, "steps": summary["steps"], "epochs": summary["epochs"],
            "tokens_per_s": summary["tokens_per_s"], "last_loss": summary["last_loss"],
            "decode_seconds": round(time.perf_counter() - decode_start, 1),
            "wall_seconds": round(time.perf_counter() - start, 1), "corpus": ckpt["corpus"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--row", action="append", default=[], help="name:key=value,... (repeatable)")
    parser.add_argument("--minutes", type=float, default=8.0)
    parser.add_argument("--clock", choices=("wall", "process"), default="process")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", default="multi30k")
    parser.add_argument("--limit", type=int, default=None, help="score only the first N validation sentences")
    parser.add_argument("--runs", type=Path, default=ROWS, help="run folders")
    parser.add_argument("--out-dir", type=Path, default=Path("experiments/results/budget_search_rows"))
    parser.add_argument("--table", action="store_true", help="gather the rows of --out-dir into --out")
    parser.add_argument("--out", type=Path, default=Path("experiments/results/budget_search.json"))
    args = parser.parse_args()
    if args.table:
        rows = [json.loads(p.read_text()) for p in sorted(args.out_dir.glob("*.json"))]
        if not rows:
            raise SystemExit(f"budget_search: no rows in {args.out_dir}; run some with --row first")
        table = sorted((r["results"] for r in rows), key=lambda r: -r["greedy_bleu"])
        write_results(args.out, "experiments/budget_search.py", None,
                      {"defaults": dataclasses.asdict(TrainConfig(max_steps=1)), "row_commands": [r["command"] for r in rows],
                       "row_hardware": sorted({r["hardware"] for r in rows}), "row_dates": sorted({r["date"] for r in rows})},
                      {"rows": table})
        for r in table:
            print(f"{r['setting']:>16}  {r['greedy_bleu']:5.2f} BLEU  {r['steps']:5d} steps  {r['tokens_per_s']:7.1f} tok/s  "
                  f"{r['minutes']:g} min ({r['clock']}, {r['threads']} thread)  seed {r['seed']}")
        return
    torch.set_num_threads(args.threads)
    for text in args.row:
        name, overrides = parse_row(text)
        result = run_row(name, overrides, args)
        write_results(args.out_dir / f"{name}.json", "experiments/budget_search.py", None,
                      {"row": text, "minutes": args.minutes, "clock": args.clock}, result)
        print(json.dumps(result), file=sys.stderr)
        print(hardware_description(), file=sys.stderr)


if __name__ == "__main__":
    main()
