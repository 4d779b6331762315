"""``attnlab-lm``: train, evaluate and sample from the chapter 9 language model.

    attnlab-lm train --out runs/lm --minutes 20 --device auto
    attnlab-lm train --out runs/lm --minutes 30 --resume        # continue the same run, to 30 minutes in all
    attnlab-lm evaluate runs/lm/checkpoint.pt --results r.json  # validation and test perplexity
    attnlab-lm generate runs/lm/checkpoint.pt "A dog" --temperature 0.8 --top-p 0.9

Several processes (or GPUs): ``torchrun --nproc_per_node 2 -m attnlab.lm train ...``.
The conventions are ``attnlab-translate``'s: budgets count the whole run, options left out on
``--resume`` keep their saved values, errors name the option to change.
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
Train the language model on the English side of chapter 8's corpus; OUT receives config.json,
train_log.jsonl, checkpoint.pt and snapshots.

Budgets: --minutes (of training time, on the --clock) and --max-steps count the whole run, across
resumes; training stops at whichever comes first. To continue a run that stopped at its budget,
give --resume and a larger total.

With --resume, an option you leave out keeps the value saved in OUT/checkpoint.pt (the defaults
below are for a new run). Only the budgets, --clock, --device, --log-every and --snapshot-minutes may
change on resume; the others must match the saved run."""

_CHOICES = {"corpus": ("auto", "multi30k", "embedded"), "optimizer": ("adam", "sgd"), "clock": ("wall", "process"),
            "amp": ("auto", "off", "bf16", "fp16"), "norm": ("rmsnorm", "layernorm"), "ffn": ("swiglu", "relu"),
            "position": ("rope", "sinusoidal"), "rope_pairing": ("half", "adjacent")}
_OPTIONAL_INTS = ("max_steps", "num_kv_heads", "ffn_hidden")


class _CliError(Exception):
    """A problem with the command line: ``attnlab-lm CMD: message``, exit status 2."""


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _fields() -> list[str]:
    from attnlab.lm.train import LMTrainConfig

    return [f.name for f in dataclasses.fields(LMTrainConfig) if f.name != "extra"]


def _field_help() -> dict[str, str]:
    """Each LMTrainConfig field's end-of-line comment in its source (none if the source is not installed)."""
    from attnlab.lm.train import LMTrainConfig

    try:
        source = inspect.getsource(LMTrainConfig)
    except (OSError, TypeError):
        return {}
    return {m.group(1): m.group(2).strip() for m in re.finditer(r"^\s+(\w+): [^#\n]*#(.*)$", source, re.M)}


def _train_parser(sub) -> None:
    from attnlab.lm.train import LMTrainConfig

    p = sub.add_parser("train", help="train a model (resumable checkpoints in --out)", description=TRAIN_DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, required=True, help="run folder: config, log, checkpoints")
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt; options left out keep their saved values")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    comments, defaults = _field_help(), LMTrainConfig(max_steps=1)
    for name in _fields():
        value, text = getattr(defaults, name), comments.get(name, "")
        if name in _OPTIONAL_INTS:
            kwargs = dict(type=int, help=f"{text} (default: none)")
        elif name == "minutes":
            kwargs = dict(type=float, help=f"{text} (default: none)")
        elif isinstance(value, bool):
            kwargs = dict(action=argparse.BooleanOptionalAction, help=f"{text} (default: {value})")
        elif isinstance(value, tuple):
            kwargs = dict(type=float, nargs=len(value), metavar="B", help=f"{text} (default: {' '.join(map(str, value))})")
        elif isinstance(value, float) or name == "snapshot_minutes":
            kwargs = dict(type=float, help=f"{text} (default: {value})")
        else:
            kwargs = dict(type=type(value), help=f"{text} (default: {value})")
        if name in _CHOICES:
            kwargs["choices"] = _CHOICES[name]
        p.add_argument(_flag(name), default=None, **kwargs)


def _device(name: str):
    try:
        return get_device(name)
    except RuntimeError as exc:
        raise _CliError(f"{str(exc).split(';')[0]}; use --device auto (the best device here) or --device cpu") from exc
    except ValueError as exc:
        raise _CliError(f"unknown --device {name!r}: use auto, cpu, cuda, cuda:N or mps") from exc


def _show(value) -> str:
    return " ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def _config_from(args):
    """The run's LMTrainConfig: options given; others from the checkpoint on --resume, else the defaults."""
    from attnlab.lm.train import RESUME_MAY_CHANGE, LMTrainConfig, load_checkpoint
    from attnlab.training import reached_budget

    given = {n: getattr(args, n) for n in _fields() if getattr(args, n) is not None}
    values, state = dict(given), None
    if args.resume:
        path = args.out / "checkpoint.pt"
        if not path.is_file():
            raise _CliError(f"--resume: no checkpoint at {path}; leave out --resume to start a new run there")
        state = load_checkpoint(path)
        saved = state["config"]
        conflicts = [f"  {_flag(n)}: saved {_show(saved.get(n))}, given {_show(v)}" for n, v in given.items()
                     if n not in RESUME_MAY_CHANGE and _show(saved.get(n)) != _show(v)]
        if conflicts:
            raise _CliError("cannot resume with a different configuration:\n" + "\n".join(conflicts) + "\n"
                            "leave these options out to continue with the saved values, or train a new run with another --out")
        values = {**saved, **given}
    if values.get("minutes") is None and values.get("max_steps") is None:
        raise _CliError("give a training budget: --minutes, --max-steps or both")
    try:
        config = LMTrainConfig(**values)
    except ValueError as exc:
        raise _CliError(str(exc)) from exc
    device = _device(config.device)
    if config.amp in ("bf16", "fp16") and device.type != "cuda":
        raise _CliError(f"--amp {config.amp} needs CUDA; use --amp auto or --amp off on {device.type}")
    if state is not None and (used_up := reached_budget(config, state["step"], state["elapsed"])):
        done = f"step {state['step']}" if used_up == "max_steps" else f"{state['elapsed'] / 60:.3g} minutes of training"
        raise _CliError(f"budget already reached: {done} of {_flag(used_up)} {getattr(config, used_up):g}; "
                        f"give a larger total with {_flag(used_up)} (budgets count the whole run, across resumes)")
    return config


def _cmd_train(args) -> int:
    from attnlab.lm.train import train

    config = _config_from(args)
    summary = train(config, args.out, resume=args.resume, progress=not args.no_progress,
                    echo=lambda r: print(json.dumps(r), file=sys.stderr) if r.get("event") == "start" else None)
    import torch.distributed as dist

    if dist.is_initialized():
        dist.destroy_process_group()
    if os.environ.get("RANK", "0") == "0":
        print(json.dumps(summary))
    return 0


def _cmd_evaluate(args) -> int:
    from attnlab.lm.train import evaluate
    from attnlab.results import write_results

    start = time.perf_counter()
    result = {"checkpoint": str(args.checkpoint), **evaluate(args.checkpoint, args.splits, _device(args.device))}
    print(json.dumps(result))
    if args.results:
        write_results(args.results, "-m attnlab.lm", sys.argv[1:], {"splits": args.splits}, result,
                      time.perf_counter() - start)
    return 0


def _cmd_generate(args) -> int:
    import torch

    from attnlab.lm.generate import generate
    from attnlab.lm.train import load_model
    from attnlab.translate.tokens import BOS, EOS, decode

    if args.top_p is not None and args.temperature is None:
        raise _CliError("--top-p samples: give --temperature too (1.0 keeps the model's distribution)")
    if args.temperature is not None and args.temperature <= 0:
        raise _CliError("--temperature must be > 0; leave it out for greedy decoding")
    if args.top_p is not None and not 0 < args.top_p <= 1:
        raise _CliError("--top-p must be in (0, 1]")
    device = _device(args.device)
    model, tokenizer, _ = load_model(args.checkpoint, device)
    generator = torch.Generator(device=device).manual_seed(args.seed)
    prompts = args.prompt or [line.rstrip("\n") for line in sys.stdin]
    for text in prompts:
        ids = [BOS] + tokenizer.encode(text).ids if text else [BOS]
        prompt = torch.tensor([ids], device=device)
        start = time.perf_counter()
        out = generate(model, prompt, args.max_new_tokens, args.temperature, args.top_p, EOS,
                       use_cache=not args.no_cache, generator=generator)
        seconds = time.perf_counter() - start
        new = out.shape[1] - prompt.shape[1]
        print(decode(tokenizer, out[0].tolist()))
        if args.timing:
            print(json.dumps({"new_tokens": new, "ms_per_token": round(1e3 * seconds / max(new, 1), 3),
                              "cache": not args.no_cache}), file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="attnlab-lm", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    _train_parser(sub)
    ev = sub.add_parser("evaluate", help="perplexity of a checkpoint on splits of its corpus")
    ev.add_argument("checkpoint", type=Path, help="a checkpoint.pt or snapshot written by train")
    ev.add_argument("--splits", nargs="+", default=["val", "test_2016_flickr"], choices=["train", "val", "test_2016_flickr"])
    ev.add_argument("--device", default="auto", help="auto (CUDA, then MPS, then CPU), cpu, cuda, cuda:N or mps")
    ev.add_argument("--results", type=Path, help="also write a results JSON (command, hardware, date)")
    ge = sub.add_parser("generate", help="continue prompts given as arguments or on stdin")
    ge.add_argument("checkpoint", type=Path, help="a checkpoint.pt or snapshot written by train")
    ge.add_argument("prompt", nargs="*", help="prompts (default: read lines from stdin); empty: start from <bos>")
    ge.add_argument("--max-new-tokens", type=int, default=30, help="tokens to add at most (stops at <eos>)")
    ge.add_argument("--temperature", type=float, default=None, help="sample at this temperature (default: greedy)")
    ge.add_argument("--top-p", type=float, default=None, help="nucleus sampling: keep this much probability mass")
    ge.add_argument("--seed", type=int, default=0, help="seed of the sampling")
    ge.add_argument("--no-cache", action="store_true", help="recompute the whole sequence at every step")
    ge.add_argument("--timing", action="store_true", help="print milliseconds per token to stderr")
    ge.add_argument("--device", default="auto", help="auto (CUDA, then MPS, then CPU), cpu, cuda, cuda:N or mps")
    args = parser.parse_args(argv)
    try:
        return {"train": _cmd_train, "evaluate": _cmd_evaluate, "generate": _cmd_generate}[args.command](args)
    except _CliError as exc:
        print(f"attnlab-lm {args.command}: {exc}", file=sys.stderr)
        return 2
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        print(f"attnlab-lm {args.command}: {exc}", file=sys.stderr)
        return 1
