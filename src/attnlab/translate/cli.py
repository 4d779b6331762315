"""``attnlab-translate``: train, evaluate and use the capstone translation model.

    attnlab-translate train --out runs/base --minutes 45 --device auto
    attnlab-translate train --out runs/base --minutes 60 --resume      # continue the same run
    attnlab-translate evaluate runs/base/checkpoint.pt --beam 5 --average-last 3 --results r.json
    echo "Ein Hund läuft im Park." | attnlab-translate translate runs/base/checkpoint.pt

Several processes (or GPUs): ``torchrun --nproc_per_node 2 -m attnlab.translate train ...``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

from attnlab.device import get_device


def _train_parser(sub) -> None:
    from attnlab.translate.train import TrainConfig

    p = sub.add_parser("train", help="train a model (resumable checkpoints in --out)")
    p.add_argument("--out", type=Path, required=True, help="run folder: config, log, checkpoints")
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    defaults = TrainConfig(max_steps=1)
    for f in dataclasses.fields(TrainConfig):
        if f.name in ("extra",):
            continue
        value = getattr(defaults, f.name)
        flag = "--" + f.name.replace("_", "-")
        if f.name == "max_steps":
            p.add_argument(flag, type=int, default=None)
        elif f.name == "minutes":
            p.add_argument(flag, type=float, default=None)
        elif isinstance(value, bool):
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=value)
        elif isinstance(value, tuple):
            p.add_argument(flag, type=float, nargs=len(value), default=value)
        elif f.name == "snapshot_minutes":
            p.add_argument(flag, type=float, default=value)
        else:
            p.add_argument(flag, type=type(value), default=value)


def _config_from(args):
    from attnlab.translate.train import TrainConfig

    names = {f.name for f in dataclasses.fields(TrainConfig)} - {"extra"}
    return TrainConfig(**{n: getattr(args, n) for n in names})


def _snapshots(run: Path) -> list[Path]:
    return sorted(run.glob("snapshot-step*.pt"))


def _cmd_train(args) -> int:
    from attnlab.translate.train import train

    try:
        config = _config_from(args)
    except ValueError as exc:
        print(f"attnlab-translate train: {exc}", file=sys.stderr)
        return 2
    summary = train(config, args.out, resume=args.resume, progress=not args.no_progress,
                    echo=lambda r: print(json.dumps(r), file=sys.stderr) if "event" in r else None)
    import torch.distributed as dist

    if dist.is_initialized():
        dist.destroy_process_group()
    if os.environ.get("RANK", "0") == "0":
        print(json.dumps(summary))
    return 0


def _cmd_evaluate(args) -> int:
    import torch

    from attnlab.results import write_results
    from attnlab.translate.data import load_corpus
    from attnlab.translate.evaluation import corpus_bleu, translate
    from attnlab.translate.train import TrainConfig, load_model

    device = get_device(args.device)
    average = None
    if args.average_last:
        average = _snapshots(args.checkpoint.parent)[-args.average_last:]
        if len(average) < args.average_last:
            print(f"attnlab-translate evaluate: --average-last {args.average_last} but only {len(average)} "
                  f"snapshots in {args.checkpoint.parent}", file=sys.stderr)
            return 2
    model, tokenizer, ckpt = load_model(args.checkpoint, device, average)
    config = TrainConfig(**ckpt["config"])
    corpus = load_corpus(ckpt["corpus_name"], config.direction)
    sources, references = corpus.source[args.split], corpus.target[args.split]
    if args.limit:
        sources, references = sources[:args.limit], references[:args.limit]
    start = time.perf_counter()
    with torch.inference_mode():
        hypotheses = translate(model, tokenizer, sources, args.beam, args.alpha, args.batch_size)
    seconds = time.perf_counter() - start
    bleu, signature = corpus_bleu(hypotheses, references)
    result = {"checkpoint": str(args.checkpoint), "averaged": [p.name for p in average or []],
              "corpus": ckpt["corpus"], "split": args.split, "sentences": len(sources), "beam": args.beam,
              "alpha": args.alpha, "bleu": round(bleu, 2), "signature": signature, "train_steps": ckpt["step"],
              "train_seconds": round(ckpt["elapsed"], 1), "decode_seconds": round(seconds, 1)}
    print(json.dumps(result))
    if args.results:
        write_results(args.results, "-m attnlab.translate", sys.argv[1:], ckpt["config"], result, seconds)
    if args.hypotheses:
        Path(args.hypotheses).write_text("\n".join(hypotheses) + "\n", encoding="utf-8")
    return 0


def _cmd_translate(args) -> int:
    import torch

    from attnlab.translate.evaluation import translate

    from attnlab.translate.train import load_model

    model, tokenizer, _ = load_model(args.checkpoint, get_device(args.device))
    lines = args.text or [line.rstrip("\n") for line in sys.stdin]
    with torch.inference_mode():
        for line in translate(model, tokenizer, lines, args.beam, args.alpha, args.batch_size):
            print(line)
    return 0


def _decode_options(p) -> None:
    p.add_argument("checkpoint", type=Path, help="a checkpoint.pt or snapshot written by train")
    p.add_argument("--beam", type=int, default=5, help="beam size (1 = greedy)")
    p.add_argument("--alpha", type=float, default=0.6, help="length penalty exponent")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--device", default="auto")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="attnlab-translate", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    _train_parser(sub)
    ev = sub.add_parser("evaluate", help="sacreBLEU of a checkpoint on a split of its corpus")
    _decode_options(ev)
    ev.add_argument("--split", default="test_2016_flickr", choices=["train", "val", "test_2016_flickr"])
    ev.add_argument("--limit", type=int, default=None, help="only the first N sentences")
    ev.add_argument("--average-last", type=int, default=0, help="average the weights of the last N snapshots")
    ev.add_argument("--results", type=Path, help="also write a results JSON (command, hardware, date)")
    ev.add_argument("--hypotheses", type=Path, help="also write the translations, one per line")
    tr = sub.add_parser("translate", help="translate sentences given as arguments or on stdin")
    _decode_options(tr)
    tr.add_argument("text", nargs="*", help="sentences (default: read lines from stdin)")
    args, extra = parser.parse_known_args(argv)
    if extra and args.command == "translate" and not any(e.startswith("-") for e in extra):
        args.text = list(args.text) + extra  # sentences given after an option
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return {"train": _cmd_train, "evaluate": _cmd_evaluate, "translate": _cmd_translate}[args.command](args)
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        print(f"attnlab-translate {args.command}: {exc}", file=sys.stderr)
        return 1
