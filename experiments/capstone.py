"""The capstone's long run: train for a fixed time, then score snapshots and the final model (chapter 8).

Trains with `attnlab.translate.train` (the configuration of `attnlab-translate train`, overridable
below), keeping a snapshot of the weights every --snapshot-minutes of training. Then it measures
sacreBLEU on test_2016_flickr for:
  * every snapshot, greedy (BLEU against minutes of training: the curve);
  * the final weights, greedy and with beam search;
  * the average of the last --average-last snapshots, with beam search.
Everything goes into one results file (command, hardware, date, wall times, BLEU with signature)
that the chapter 8 page reads: by default experiments/results/capstone_<cpu|gpu>_<budget>.json, so
that a run never overwrites one of another budget.

    ATTNLAB_DATA=../shared/data python experiments/capstone.py --minutes 45 --corpus multi30k
    python experiments/capstone.py --minutes 0.5 --corpus embedded --run /tmp/run --out /tmp/c.json  # smoke test
    python experiments/capstone.py --device auto --d-model 512 --num-heads 8 --d-ff 2048 ... # a GPU run
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import torch

from attnlab import get_device
from attnlab.results import write_results
from attnlab.translate.data import load_corpus
from attnlab.translate.evaluation import corpus_bleu, translate
from attnlab.translate.train import TrainConfig, build_model, load_checkpoint, load_model, train

RESULTS = Path(__file__).with_name("results")


def default_out(config: TrainConfig, device: torch.device) -> Path:
    """``capstone_cpu_45min.json`` and the like: a new budget or device never overwrites an older run."""
    budget = f"{config.minutes:g}min" if config.minutes else f"{config.max_steps}steps"
    return RESULTS / f"capstone_{'gpu' if device.type == 'cuda' else 'cpu'}_{budget}.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=Path, default=Path("runs/capstone"), help="run folder (checkpoints)")
    parser.add_argument("--out", type=Path, default=None,
                        help="results JSON (default: experiments/results/capstone_<cpu|gpu>_<budget>.json)")
    parser.add_argument("--skip-train", action="store_true", help="only evaluate an existing run folder")
    parser.add_argument("--train-command", default="", help="with --skip-train: the command that trained the run, for the record")
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--alpha", type=float, default=0.6)
    parser.add_argument("--average-last", type=int, default=4)
    parser.add_argument("--curve-every", type=int, default=2, help="score every Nth snapshot for the curve")
    parser.add_argument("--limit", type=int, default=None, help="score only the first N test sentences (smoke tests)")
    defaults = TrainConfig(minutes=45, snapshot_minutes=2.5)
    for f in dataclasses.fields(TrainConfig):
        value = getattr(defaults, f.name)
        if f.name in ("extra", "betas"):
            continue
        if isinstance(value, bool):
            parser.add_argument("--" + f.name.replace("_", "-"), action=argparse.BooleanOptionalAction, default=value)
            continue
        kind = float if f.name in ("minutes", "snapshot_minutes") else (int if f.name == "max_steps" else type(value))
        parser.add_argument("--" + f.name.replace("_", "-"), type=kind, default=value)
    args = parser.parse_args()
    config = TrainConfig(**{f.name: getattr(args, f.name) for f in dataclasses.fields(TrainConfig)
                            if hasattr(args, f.name)})
    device = get_device(config.device)
    wall = time.perf_counter()
    if not args.skip_train:
        summary = train(config, args.run, progress=sys.stderr.isatty())
    else:  # a run trained elsewhere (e.g. `attnlab-translate train --processes 2`): its own configuration
        end = load_checkpoint(args.run / "checkpoint.pt")
        config = TrainConfig.from_saved(end["config"])
        summary = {"steps": end["step"], "train_seconds": round(end["elapsed"], 1),
                   "tokens_per_s": round(end["tokens_seen"] / end["elapsed"], 1)}
        log = [json.loads(line) for line in (args.run / "train_log.jsonl").read_text().splitlines()]
        summary.update(next((r for r in reversed(log) if r.get("event") == "end"), {}))
        summary["world_size"] = json.loads((args.run / "config.json").read_text())["world_size"]
        if args.train_command:
            summary["command"] = args.train_command
    out = args.out or default_out(config, device)
    model, tokenizer, ckpt = load_model(args.run / "checkpoint.pt", device)
    corpus = load_corpus(ckpt["corpus_name"], config.direction)
    sources, references = corpus.source["test_2016_flickr"][:args.limit], corpus.target["test_2016_flickr"][:args.limit]

    def score(net, beam):
        start = time.perf_counter()
        with torch.inference_mode():
            hyps = translate(net, tokenizer, sources, beam, args.alpha)
        bleu, signature = corpus_bleu(hyps, references)
        return {"bleu": round(bleu, 2), "signature": signature, "beam": beam,
                "decode_seconds": round(time.perf_counter() - start, 1)}, hyps

    snapshots = sorted(args.run.glob("snapshot-step*.pt"))
    curve = []
    for i, path in enumerate(snapshots):
        if (i + 1) % args.curve_every and path != snapshots[-1]:
            continue
        snap = load_checkpoint(path)
        net = build_model(TrainConfig.from_saved(snap["config"]), tokenizer.get_vocab_size()).to(device).eval()
        net.load_state_dict(snap["model"])
        result, _ = score(net, 1)
        curve.append({"minutes": round(snap["elapsed"] / 60, 2), "step": snap["step"], **result})
        print(f"{path.name}: step {snap['step']} greedy BLEU {result['bleu']}", file=sys.stderr)
    final_greedy, _ = score(model, 1)
    final_beam, _ = score(model, args.beam)
    averaged = None
    if args.average_last and len(snapshots) >= args.average_last:
        chosen = snapshots[-args.average_last:]
        avg_model, _, _ = load_model(args.run / "checkpoint.pt", device, average=chosen)
        averaged, hyps = score(avg_model, args.beam)
        averaged["snapshots"] = [p.name for p in chosen]
        examples = [{"source": s, "reference": r, "hypothesis": h}
                    for s, r, h in list(zip(sources, references, hyps))[:5]]
    else:
        examples = []
    results = {"corpus": ckpt["corpus"], "direction": config.direction, "device": str(device),
               "test_sentences": len(sources),
               "train": summary, "curve": curve, "final_greedy": final_greedy, "final_beam": final_beam,
               "averaged_beam": averaged, "examples": examples}
    record = write_results(out, "experiments/capstone.py", None, dataclasses.asdict(config), results,
                           time.perf_counter() - wall)
    print(record["results"]["final_beam"], record["results"]["averaged_beam"])


if __name__ == "__main__":
    main()
