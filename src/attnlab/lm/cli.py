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
import json
import sys
import time
from pathlib import Path

from attnlab.training_cli import CliError as _CliError, add_train_parser, device as _device, dispatch, run_train

TRAIN_DESCRIPTION = """\
Train the language model on the English side of chapter 8's corpus; OUT receives config.json,
train_log.jsonl, checkpoint.pt and snapshots.

Budgets: --minutes (of training time, on the --clock) and --max-steps count the whole run, across
resumes; training stops at whichever comes first. To continue a run that stopped at its budget,
give --resume and a larger total.

With --resume, an option you leave out keeps the value saved in OUT/checkpoint.pt (the defaults
below are for a new run). Only the budgets, --clock, --device, --log-every, --snapshot-minutes and
--compile may change on resume; the others must match the saved run.

Schedule: inverse_sqrt (the default here, the paper's: --warmup-steps, then 1/sqrt(step)); cosine or
linear warm up over --warmup-fraction of the budget, then decay to 0 at its end."""

_CHOICES = {"corpus": ("auto", "multi30k", "embedded"), "norm": ("rmsnorm", "layernorm"), "ffn": ("swiglu", "relu"),
            "position": ("rope", "sinusoidal"), "rope_pairing": ("half", "adjacent")}


def _cmd_train(args) -> int:
    from attnlab.lm.train import LMTrainConfig, load_checkpoint, train

    return run_train(args, LMTrainConfig, load_checkpoint, train, "attnlab.lm", args.argv)


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


def build_parser() -> argparse.ArgumentParser:
    """The command line: ``train`` (one option per :class:`LMTrainConfig` field), and the others."""
    from attnlab.lm.train import LMTrainConfig

    parser = argparse.ArgumentParser(prog="attnlab-lm", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add_train_parser(sub, LMTrainConfig, TRAIN_DESCRIPTION, _CHOICES)
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
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else map(str, argv))
    return dispatch("attnlab-lm", args.command, {"train": _cmd_train, "evaluate": _cmd_evaluate,
                                                 "generate": _cmd_generate}, args)
