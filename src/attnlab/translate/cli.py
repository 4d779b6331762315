"""``attnlab-translate``: train, evaluate and use the capstone translation model.

    attnlab-translate train --out runs/base --minutes 45 --device auto
    attnlab-translate train --out runs/base --minutes 60 --resume      # continue the same run, to 60 minutes in all
    attnlab-translate evaluate runs/base/checkpoint.pt --beam 5 --average-last 4 --results r.json
    echo "Ein Hund läuft im Park." | attnlab-translate translate runs/base/checkpoint.pt

Several processes (or GPUs): ``torchrun --nproc_per_node 2 -m attnlab.translate train ...``.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import os
import re
import sys
import time
from pathlib import Path

from attnlab.device import get_device


TRAIN_DESCRIPTION = """\
Train the translation model; OUT receives config.json, train_log.jsonl, checkpoint.pt and snapshots.

Budgets: --minutes (of training time) and --max-steps count the whole run, across resumes; training
stops at whichever comes first. To continue a run that stopped at its budget, give --resume and a
larger total: `--max-steps 2000 --resume` after 1000 steps trains 1000 more.

With --resume, an option you leave out keeps the value saved in OUT/checkpoint.pt (the defaults
below are for a new run). Only the budgets, --device, --log-every and --snapshot-minutes may change
on resume; the others must match the saved run."""

# option -> choices, for the options that take one of a few words
_CHOICES = {"corpus": ("auto", "multi30k", "embedded"), "direction": ("de-en", "en-de"),
            "optimizer": ("adam", "sgd"), "amp": ("auto", "off", "bf16", "fp16")}


class _CliError(Exception):
    """A problem with the command line, reported as ``attnlab-translate CMD: message`` with exit status 2."""


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _config_fields() -> list[str]:
    from attnlab.translate.train import TrainConfig

    return [f.name for f in dataclasses.fields(TrainConfig) if f.name != "extra"]


def _field_help() -> dict[str, str]:
    """Each TrainConfig field's end-of-line comment in its source (the one place they are written);
    none where the source is not installed (``--help`` then shows the defaults only)."""
    from attnlab.translate.train import TrainConfig

    try:
        source = inspect.getsource(TrainConfig)
    except (OSError, TypeError):
        return {}
    return {m.group(1): m.group(2).strip() for m in re.finditer(r"^\s+(\w+): [^#\n]*#(.*)$", source, re.M)}


def _train_parser(sub) -> None:
    from attnlab.translate.train import TrainConfig

    p = sub.add_parser("train", help="train a model (resumable checkpoints in --out)", description=TRAIN_DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, required=True, help="run folder: config, log, checkpoints")
    p.add_argument("--resume", action="store_true",
                   help="continue from OUT/checkpoint.pt; options left out keep their saved values")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    comments = _field_help()
    defaults = TrainConfig(max_steps=1)
    types = {f.name: f.type for f in dataclasses.fields(TrainConfig)}
    # every option defaults to None ("not given"): a new run then takes TrainConfig's default, a resumed
    # run the value saved in its checkpoint
    for name in _config_fields():
        value = getattr(defaults, name)
        text = comments.get(name, "")
        if name == "max_steps":
            kwargs = dict(type=int, help=f"{text} (default: none)")
        elif name == "minutes":
            kwargs = dict(type=float, help=f"{text} (default: none)")
        elif isinstance(value, bool):
            kwargs = dict(action=argparse.BooleanOptionalAction, help=f"{text} (default: {value})")
        elif isinstance(value, tuple):
            kwargs = dict(type=float, nargs=len(value), metavar="B",
                          help=f"{text} (default: {' '.join(map(str, value))})")
        elif "float" in str(types[name]):
            kwargs = dict(type=float, help=f"{text} (default: {value})")
        else:
            kwargs = dict(type=type(value), help=f"{text} (default: {value})")
        if name in _CHOICES:
            kwargs["choices"] = _CHOICES[name]
        p.add_argument(_flag(name), default=None, **kwargs)


def _device(name: str):
    """``get_device(name)``, with the advice given as command-line options."""
    try:
        return get_device(name)
    except RuntimeError as exc:  # the device is not on this machine
        reason = str(exc).split(";")[0]
        raise _CliError(f"{reason}; use --device auto (the best device here) or --device cpu") from exc
    except ValueError as exc:
        raise _CliError(f"unknown --device {name!r}: use auto, cpu, cuda, cuda:N or mps") from exc


def _differs(saved, given) -> bool:
    if isinstance(given, (list, tuple)) and isinstance(saved, (list, tuple)):
        return tuple(saved) != tuple(given)
    return saved != given


def _config_from(args):
    """The run's TrainConfig: the options given; for the others, on --resume the checkpoint's saved
    values, otherwise TrainConfig's defaults. Also checks what only the command line can phrase."""
    from attnlab.translate.train import RESUME_MAY_CHANGE, TrainConfig, load_checkpoint, reached_budget

    given = {n: getattr(args, n) for n in _config_fields() if getattr(args, n) is not None}
    values, state = dict(given), None
    if args.resume:
        path = args.out / "checkpoint.pt"
        if not path.is_file():
            raise _CliError(f"--resume: no checkpoint at {path}; leave out --resume to start a new run there")
        state = load_checkpoint(path)
        saved = state["config"]
        conflicts = [f"  {_flag(n)}: saved {_show(saved.get(n))}, given {_show(v)}" for n, v in given.items()
                     if n not in RESUME_MAY_CHANGE and _differs(saved.get(n), v)]
        if conflicts:
            raise _CliError("cannot resume with a different configuration:\n" + "\n".join(conflicts) + "\n"
                            "leave these options out to continue with the saved values, or train a new run "
                            "with another --out")
        values = {**saved, **given}
    if values.get("minutes") is None and values.get("max_steps") is None:
        raise _CliError("give a training budget: --minutes, --max-steps or both")
    if values.get("warmup_steps", 1) < 1:
        raise _CliError("--warmup-steps must be at least 1")
    config = TrainConfig(**values)
    device = _device(config.device)
    if config.amp in ("bf16", "fp16") and device.type != "cuda":
        raise _CliError(f"--amp {config.amp} needs CUDA; use --amp auto or --amp off on {device.type}")
    if state is not None:
        used_up = reached_budget(config, state["step"], state["elapsed"])
        if used_up:
            done = (f"step {state['step']}" if used_up == "max_steps"
                    else f"{state['elapsed'] / 60:.3g} minutes of training")
            source = "" if used_up in given else " (saved in the checkpoint)"
            raise _CliError(f"budget already reached: {done} of {_flag(used_up)} {getattr(config, used_up):g}{source}; "
                            f"give a larger total with {_flag(used_up)} (budgets count the whole run, across resumes)")
    return config


def _show(value) -> str:
    return " ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def _snapshots(run: Path) -> list[Path]:
    return sorted(run.glob("snapshot-step*.pt"))


def _cmd_train(args) -> int:
    from attnlab.translate.train import train

    config = _config_from(args)
    # the start event goes to stderr as it happens; the closing summary is printed once, on stdout
    summary = train(config, args.out, resume=args.resume, progress=not args.no_progress,
                    echo=lambda r: print(json.dumps(r), file=sys.stderr) if r.get("event") == "start" else None)
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

    device = _device(args.device)
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
    except _CliError as exc:
        print(f"attnlab-translate {args.command}: {exc}", file=sys.stderr)
        return 2
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        print(f"attnlab-translate {args.command}: {exc}", file=sys.stderr)
        return 1
