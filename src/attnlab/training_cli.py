"""The ``train`` command of both capstone CLIs (``attnlab-translate``, ``attnlab-lm``), written once.

Every field of the run's configuration dataclass becomes an option (``peak_lr`` -> ``--peak-lr``)
whose help is the field's end-of-line comment in the source. An option left out is None ("not
given"): a new run then takes the dataclass's default, a resumed run the value saved in its
checkpoint. Problems that only the command line can phrase are reported naming the option.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import os
import re
import sys
from pathlib import Path

from attnlab.device import get_device
from attnlab.training import reached_budget

# option -> choices, for the loop's options that take one of a few words
LOOP_CHOICES = {"optimizer": ("adam", "sgd"), "amp": ("auto", "off", "bf16", "fp16"), "clock": ("wall", "process"),
                "schedule": ("cosine", "linear", "inverse_sqrt")}


class CliError(Exception):
    """A problem with the command line, reported as ``PROG CMD: message`` with exit status 2."""


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def config_fields(config_cls) -> list[str]:
    """The options of ``config_cls``: its own fields first (model, data), then the loop's."""
    names = [f.name for f in dataclasses.fields(config_cls) if f.name != "extra"]
    own = [n for n in config_cls.__annotations__ if n in names]
    return own + [n for n in names if n not in own]


def field_help(config_cls) -> dict[str, str]:
    """Each field's end-of-line comment in the source of ``config_cls`` and its bases (the one place
    they are written; a subclass's comment wins); none where the source is not installed."""
    comments: dict[str, str] = {}
    for cls in reversed(config_cls.__mro__):
        if not dataclasses.is_dataclass(cls):
            continue
        try:
            source = inspect.getsource(cls)
        except (OSError, TypeError):
            continue
        comments.update({m.group(1): m.group(2).strip()
                         for m in re.finditer(r"^\s+(\w+): [^#\n]*#(.*)$", source, re.M)})
    return comments


def add_train_parser(sub, config_cls, description: str, choices: dict[str, tuple[str, ...]]):
    """The ``train`` sub-command: ``--out``, ``--resume``, ``--no-progress`` and one option per field."""
    p = sub.add_parser("train", help="train a model (resumable checkpoints in --out)", description=description,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, required=True, help="run folder: config, log, checkpoints")
    p.add_argument("--resume", action="store_true",
                   help="continue from OUT/checkpoint.pt; options left out keep their saved values")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--processes", type=int, default=1,
                   help="train with DistributedDataParallel in N processes on this machine, each with its share of "
                        "the cores as threads (launches torchrun; benchmarks/cpu_processes.py measures whether it is "
                        "faster here)")
    comments, defaults = field_help(config_cls), config_cls(max_steps=1)
    types = {f.name: str(f.type) for f in dataclasses.fields(config_cls)}
    unset = {f.name for f in dataclasses.fields(config_cls) if f.default is None}  # none means "decided by the run"
    choices = {**LOOP_CHOICES, **choices}
    for name in config_fields(config_cls):
        value, text = (None if name in unset else getattr(defaults, name)), comments.get(name, "")
        if name == "max_steps" or (value is None and "int" in types[name]):
            kwargs = dict(type=int, help=f"{text} (default: none)")
        elif value is None:
            kwargs = dict(type=float, help=f"{text} (default: none)")
        elif isinstance(value, bool):
            kwargs = dict(action=argparse.BooleanOptionalAction, help=f"{text} (default: {value})")
        elif isinstance(value, tuple):
            kwargs = dict(type=float, nargs=len(value), metavar="B",
                          help=f"{text} (default: {' '.join(map(str, value))})")
        elif "float" in types[name]:
            kwargs = dict(type=float, help=f"{text} (default: {value})")
        else:
            kwargs = dict(type=type(value), help=f"{text} (default: {value})")
        if name in choices:
            kwargs["choices"] = choices[name]
        p.add_argument(flag(name), default=None, **kwargs)
    return p


def parse_overrides(text: str, config_cls) -> dict:
    """``key=value,key=value`` -> configuration fields, each value typed as the field's default
    (for scripts that run several settings: ``d_model=128,schedule=linear``)."""
    defaults = config_cls(max_steps=1)
    names = {f.name for f in dataclasses.fields(config_cls)}
    overrides = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if key not in names or not sep:
            raise CliError(f"{item!r}: expected field=value with one of the fields of {config_cls.__name__}")
        current = getattr(defaults, key)
        if isinstance(current, bool):
            overrides[key] = value.lower() in ("1", "true", "yes")
        elif isinstance(current, int):
            overrides[key] = int(float(value))
        elif isinstance(current, float):
            overrides[key] = float(value)
        else:
            overrides[key] = value
    return overrides


def device(name: str):
    """``get_device(name)``, with the advice given as command-line options."""
    try:
        return get_device(name)
    except RuntimeError as exc:  # the device is not on this machine
        reason = str(exc).split(";")[0]
        raise CliError(f"{reason}; use --device auto (the best device here) or --device cpu") from exc
    except ValueError as exc:
        raise CliError(f"unknown --device {name!r}: use auto, cpu, cuda, cuda:N or mps") from exc


def _show(value) -> str:
    return " ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def _differs(saved, given) -> bool:
    if isinstance(given, (list, tuple)) and isinstance(saved, (list, tuple)):
        return tuple(saved) != tuple(given)
    return saved != given


def config_from(args, config_cls, load_checkpoint):
    """The run's configuration: the options given; for the others, on ``--resume`` the checkpoint's
    saved values, otherwise the defaults. Errors name the option to change."""
    names = config_fields(config_cls)
    given = {n: getattr(args, n) for n in names if getattr(args, n) is not None}
    values, state = dict(given), None
    if args.resume:
        path = args.out / "checkpoint.pt"
        if not path.is_file():
            raise CliError(f"--resume: no checkpoint at {path}; leave out --resume to start a new run there")
        state = load_checkpoint(path)
        saved = dataclasses.asdict(config_cls.from_saved(state["config"]))
        conflicts = [f"  {flag(n)}: saved {_show(saved.get(n))}, given {_show(v)}" for n, v in given.items()
                     if n not in config_cls.RESUME_MAY_CHANGE and _differs(saved.get(n), v)]
        if conflicts:
            raise CliError("cannot resume with a different configuration:\n" + "\n".join(conflicts) + "\n"
                           "leave these options out to continue with the saved values, or train a new run "
                           "with another --out")
        values = {**saved, **given}
    if values.get("minutes") is None and values.get("max_steps") is None:
        raise CliError("give a training budget: --minutes, --max-steps or both")
    try:
        config = config_cls(**values)
    except ValueError as exc:  # the dataclass names the field; the command line names the option
        message = str(exc)
        first = message.split(" ", 1)[0]
        if first in names:
            message = flag(first) + message[len(first):]
        raise CliError(message) from exc
    run_device = device(config.device)
    if config.amp in ("bf16", "fp16") and run_device.type != "cuda":
        raise CliError(f"--amp {config.amp} needs CUDA; use --amp auto or --amp off on {run_device.type}")
    if state is not None and (used_up := reached_budget(config, state["step"], state["elapsed"])):
        done = (f"step {state['step']}" if used_up == "max_steps"
                else f"{state['elapsed'] / 60:.3g} minutes of training")
        source = "" if used_up in given else " (saved in the checkpoint)"
        raise CliError(f"budget already reached: {done} of {flag(used_up)} {getattr(config, used_up):g}{source}; "
                       f"give a larger total with {flag(used_up)} (budgets count the whole run, across resumes)")
    return config


def _launch(module: str, argv: list[str], processes: int) -> int:
    """Run ``python -m module argv`` under ``torchrun --standalone`` in ``processes`` processes, each
    with an equal share of this machine's cores as its threads; the exit status of the launch."""
    import subprocess

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    threads = str(max(1, cores // processes))
    env = {**os.environ, "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads}
    rest, skip = [], False
    for item in argv:  # everything but --processes, which the launched processes must not see
        if skip:
            skip = False
        elif item == "--processes":
            skip = True
        elif not item.startswith("--processes="):
            rest.append(item)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={processes}",
               "-m", module, *rest]
    return subprocess.run(command, env=env).returncode


def run_train(args, config_cls, load_checkpoint, train, module: str | None = None, argv: list[str] | None = None) -> int:
    """``train`` with the configuration of ``args``: the start event goes to stderr as it happens, the
    closing summary is printed once, on stdout (by the main process under ``torchrun``). With
    ``--processes N`` (N > 1, not already under torchrun) the configuration is checked here, then
    ``module`` is launched again under torchrun with the same ``argv``."""
    processes = getattr(args, "processes", 1)
    if processes < 1:
        raise CliError(f"--processes must be at least 1, got {processes}")
    config = config_from(args, config_cls, load_checkpoint)
    if processes > 1 and "WORLD_SIZE" not in os.environ:
        if module is None or argv is None:
            raise CliError("--processes needs the module and the command line to launch again")
        return _launch(module, argv, processes)
    summary = train(config, args.out, resume=args.resume, progress=not args.no_progress,
                    echo=lambda r: print(json.dumps(r), file=sys.stderr) if r.get("event") == "start" else None)
    import torch.distributed as dist

    if dist.is_initialized():
        dist.destroy_process_group()
    if os.environ.get("RANK", "0") == "0":
        print(json.dumps(summary))
    return 0


def dispatch(prog: str, command: str, handlers: dict, args) -> int:
    """Run ``handlers[command](args)``: a :class:`CliError` exits 2, a missing file or a bad value 1,
    each as one line ``PROG COMMAND: message`` on stderr."""
    try:
        return handlers[command](args)
    except CliError as exc:
        print(f"{prog} {command}: {exc}", file=sys.stderr)
        return 2
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        print(f"{prog} {command}: {exc}", file=sys.stderr)
        return 1
