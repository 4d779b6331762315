"""``attnlab-translate``: train, evaluate and use the capstone translation model.

    attnlab-translate train --out runs/base --minutes 45 --device auto
    attnlab-translate train --out runs/base --minutes 60 --resume      # continue the same run, to 60 minutes in all
    attnlab-translate evaluate runs/base/checkpoint.pt --beam 5 --average-last 4 --results r.json
    echo "Ein Hund läuft im Park." | attnlab-translate translate runs/base/checkpoint.pt

Several processes (or GPUs): ``attnlab-translate train --processes 2 ...`` or ``torchrun --nproc_per_node 2 -m attnlab.translate train ...``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from attnlab.training_cli import add_train_parser, device as _device, dispatch, run_train


TRAIN_DESCRIPTION = """\
Train the translation model; OUT receives config.json, train_log.jsonl, checkpoint.pt and snapshots.

Budgets: --minutes (of training time) and --max-steps count the whole run, across resumes; training
stops at whichever comes first. To continue a run that stopped at its budget, give --resume and a
larger total: `--max-steps 2000 --resume` after 1000 steps trains 1000 more.

With --resume, an option you leave out keeps the value saved in OUT/checkpoint.pt (the defaults
below are for a new run). Only the budgets, --clock, --device, --log-every, --snapshot-minutes and
--compile may change on resume; the others must match the saved run.

Schedule: cosine (the default) and linear warm up over --warmup-fraction of the budget, then decay to 0
at its end (in minutes when --minutes ends the run first, in steps when --max-steps does); inverse_sqrt
is the paper's (--warmup-steps, then 1/sqrt(step)), for runs whose length is not known."""

_CHOICES = {"corpus": ("auto", "multi30k", "embedded"), "direction": ("de-en", "en-de")}


def _snapshots(run: Path) -> list[Path]:
    return sorted(run.glob("snapshot-step*.pt"))


def _cmd_train(args) -> int:
    from attnlab.translate.train import TrainConfig, load_checkpoint, train

    return run_train(args, TrainConfig, load_checkpoint, train, "attnlab.translate", args.argv)


def _cmd_evaluate(args) -> int:
    import torch

    from attnlab.results import write_results
    from attnlab.translate.data import load_corpus
    from attnlab.translate.evaluation import corpus_bleu, translate
    from attnlab.translate.train import TrainConfig, load_model

    device = _device(args.device)
    average = None
    if args.average_last:
        average = _snapshots(args.checkpoint.parent)[-args.average_last:]
        if len(average) < args.average_last:
            print(f"attnlab-translate evaluate: --average-last {args.average_last} but only {len(average)} "
                  f"snapshots in {args.checkpoint.parent}", file=sys.stderr)
            return 2
    model, tokenizer, ckpt = load_model(args.checkpoint, device, average)
    config = TrainConfig.from_saved(ckpt["config"])
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

    model, tokenizer, _ = load_model(args.checkpoint, _device(args.device))
    lines = args.text or [line.rstrip("\n") for line in sys.stdin]
    with torch.inference_mode():
        for line in translate(model, tokenizer, lines, args.beam, args.alpha, args.batch_size):
            print(line)
    return 0


def _decode_options(p) -> None:
    p.add_argument("checkpoint", type=Path, help="a checkpoint.pt or snapshot written by train")
    p.add_argument("--beam", type=int, default=5, help="beam size (1 = greedy)")
    p.add_argument("--alpha", type=float, default=0.6, help="length penalty exponent")
    p.add_argument("--batch-size", type=int, default=64, help="sentences decoded together")
    p.add_argument("--device", default="auto", help="auto (CUDA, then MPS, then CPU), cpu, cuda, cuda:N or mps")


def build_parser() -> argparse.ArgumentParser:
    """The command line: ``train`` (one option per :class:`TrainConfig` field), and the others."""
    from attnlab.translate.train import TrainConfig

    parser = argparse.ArgumentParser(prog="attnlab-translate", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add_train_parser(sub, TrainConfig, TRAIN_DESCRIPTION, _CHOICES)
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
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else map(str, argv))
    if extra and args.command == "translate" and not any(e.startswith("-") for e in extra):
        args.text = list(args.text) + extra  # sentences given after an option
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return dispatch("attnlab-translate", args.command,
                    {"train": _cmd_train, "evaluate": _cmd_evaluate, "translate": _cmd_translate}, args)
