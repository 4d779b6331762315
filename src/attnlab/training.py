"""The training loop shared by both capstones (chapter 8's translation model, chapter 9's language model).

What differs between them is a :class:`Task`: the model, how the training sentences are grouped
into batches, and the loss of one batch. Everything else lives here once: the budgets (minutes of
training time or steps, totals across resumes), Adam or SGD with a learning-rate schedule laid out
over the budget (or the paper's inverse square root), gradient clipping, mixed precision on CUDA,
checkpoints that resume exactly, snapshots, DistributedDataParallel under ``torchrun``, a progress
bar and a JSONL log.

The configuration is a :class:`LoopConfig` (each capstone's adds the fields of its model and data):
budgets, clock, optimizer, schedule, logging, precision and device.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, ClassVar

import torch
import torch.distributed as dist
from torch import Tensor, nn

from attnlab.device import get_device


SCHEDULES = ("cosine", "linear", "inverse_sqrt")


@dataclass
class LoopConfig:
    """The fields of a run that the shared loop reads; each capstone's configuration extends it."""

    optimizer: str = "adam"  # "adam" (the paper's) or "sgd" (plain steps: updates are the gradients, scaled)
    peak_lr: float = 1e-3  # learning rate at the end of the warm-up
    schedule: str = "cosine"  # "cosine" or "linear": warm-up, then decay to 0 at the end of the budget; "inverse_sqrt": the paper's
    warmup_fraction: float = 0.25  # cosine/linear: share of the budget (minutes or steps) spent warming up
    warmup_steps: int = 800  # inverse_sqrt: optimizer steps of linear warm-up (at least 1)
    betas: tuple[float, float] = (0.9, 0.98)  # Adam's beta1 and beta2
    adam_eps: float = 1e-9  # Adam's epsilon
    clip_norm: float = 1.0  # clip the gradient to this global norm
    seed: int = 0  # seed of initialisation, dropout and batch order
    minutes: float | None = None  # training-time budget in minutes, counted over the whole run (across resumes)
    max_steps: int | None = None  # step budget, counted over the whole run (across resumes)
    clock: str = "wall"  # what --minutes counts: "wall" seconds or "process" CPU seconds (fair on a shared machine)
    snapshot_minutes: float | None = 5.0  # keep the weights every N minutes of training (curves, averaging); 0: never
    log_every: int = 50  # write loss, learning rate and tokens/s every N steps
    amp: str = "auto"  # "auto" (bf16 or fp16 on CUDA, off on CPU), "off", "bf16", "fp16"
    device: str = "auto"  # "auto" (CUDA, then MPS, then CPU), "cpu", "cuda", "cuda:N" or "mps"
    compile: bool = False  # train through torch.compile (its compile time counts as training time)
    extra: dict = field(default_factory=dict)

    # what a resumed run may change: the budgets, the clock, where it runs, how often it logs and keeps snapshots
    RESUME_MAY_CHANGE: ClassVar[tuple[str, ...]] = ("minutes", "max_steps", "clock", "device", "log_every",
                                                    "snapshot_minutes", "compile")

    def __post_init__(self):
        self.betas = tuple(self.betas)
        if self.minutes is None and self.max_steps is None:
            raise ValueError("give a training budget: minutes, max_steps, or both")
        if self.minutes is not None and not self.minutes >= 0:
            raise ValueError(f"minutes must be a number >= 0, got {self.minutes!r}")
        if self.max_steps is not None and self.max_steps < 0:
            raise ValueError(f"max_steps must be >= 0, got {self.max_steps!r}")
        if self.amp not in ("auto", "off", "bf16", "fp16"):
            raise ValueError(f"amp must be auto, off, bf16 or fp16, got {self.amp!r}")
        if self.optimizer not in ("adam", "sgd"):
            raise ValueError(f"optimizer must be adam or sgd, got {self.optimizer!r}")
        if self.clock not in ("wall", "process"):
            raise ValueError(f"clock must be wall or process, got {self.clock!r}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}, got {self.schedule!r}")
        if not 0 <= self.warmup_fraction < 1:
            raise ValueError(f"warmup_fraction must be in [0, 1), got {self.warmup_fraction!r}")
        if self.warmup_steps < 1:
            raise ValueError("warmup_steps must be at least 1")

    @classmethod
    def from_saved(cls, saved: dict):
        """The configuration saved in a checkpoint. Runs saved before the budget-aware schedules existed
        used the inverse-square-root schedule, and keep it."""
        saved = dict(saved)
        saved.setdefault("schedule", "inverse_sqrt")
        return cls(**saved)


# start-schedule
def inverse_sqrt_schedule(warmup_steps: int):
    """Multiplier of the peak learning rate at optimizer step ``step`` (0-based):
    linear warm-up to 1 over ``warmup_steps`` steps, then ``sqrt(warmup_steps / step)``.

    This is the paper's schedule, ``d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)``, with
    its peak value ``d_model**-0.5 * warmup**-0.5`` replaced by a chosen peak learning rate.
    """
    def factor(step: int) -> float:
        step = step + 1
        return min(step / warmup_steps, math.sqrt(warmup_steps / step))
    return factor


def budget_schedule(kind: str, warmup_fraction: float):
    """Multiplier of the peak learning rate when a share ``progress`` in [0, 1] of the budget is used:
    linear warm-up over the first ``warmup_fraction``, then decay to 0 at the end of the budget,
    along a half cosine (``kind="cosine"``) or a straight line (``"linear"``)."""
    def factor(progress: float) -> float:
        if progress < warmup_fraction:
            return progress / warmup_fraction
        rest = min(1.0, (progress - warmup_fraction) / (1 - warmup_fraction))
        return 0.5 * (1 + math.cos(math.pi * rest)) if kind == "cosine" else 1 - rest
    return factor


def budget_progress(config, step: int, elapsed: float) -> float:
    """The share of the budget used after ``step`` steps and ``elapsed`` seconds of training: the larger
    of ``step / max_steps`` and ``elapsed / (60 * minutes)`` (training stops at whichever ends first)."""
    shares = []
    if config.max_steps is not None:
        shares.append(step / config.max_steps if config.max_steps else 1.0)
    if config.minutes is not None:
        shares.append(elapsed / (60 * config.minutes) if config.minutes else 1.0)
    return min(1.0, max(shares))


def lr_factor(config, step: int, elapsed: float) -> float:
    """The multiplier of ``config.peak_lr`` for the step that starts after ``step`` steps and
    ``elapsed`` seconds: a function of those two numbers and the configuration only, so a resumed run
    follows the same schedule as an uninterrupted one."""
    if config.schedule == "inverse_sqrt":
        return inverse_sqrt_schedule(config.warmup_steps)(step)
    return budget_schedule(config.schedule, config.warmup_fraction)(budget_progress(config, step, elapsed))
# end-schedule


def reached_budget(config, step: int, elapsed: float) -> str | None:
    """The budget that a run at ``step`` after ``elapsed`` seconds of training has used up:
    ``"max_steps"``, ``"minutes"`` or None."""
    if config.max_steps is not None and step >= config.max_steps:
        return "max_steps"
    if config.minutes is not None and elapsed >= config.minutes * 60:
        return "minutes"
    return None


def atomic_save(obj, path: Path) -> None:
    """``torch.save`` to a temporary file beside ``path``, then rename it into place."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def read_checkpoint(path: Path, checkpoint_format: str, advice: str, map_location="cpu") -> dict:
    """A checkpoint file of the given format; ``advice`` says how to make one when it is missing."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}; {advice}")
    try:
        ckpt = torch.load(path, map_location=map_location, weights_only=False)
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets the same clear message
        raise ValueError(f"{path} is not a readable checkpoint ({type(exc).__name__}: {exc})") from exc
    if not isinstance(ckpt, dict) or ckpt.get("format") != checkpoint_format:
        kind = checkpoint_format.split("/")[0]
        raise ValueError(f"{path} is not an {kind} checkpoint (format {checkpoint_format})")
    return ckpt


class JsonlLog:
    """Append each record as one JSON line to ``path`` (if given) and pass it to ``echo`` (if given)."""

    def __init__(self, path: Path | None, echo):
        self.path, self.echo = path, echo

    def __call__(self, record: dict) -> None:
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(record) + "\n")
        if self.echo is not None:
            self.echo(record)


def amp_dtype(config, device: torch.device):
    """The autocast dtype for ``config.amp`` on ``device`` (None: full precision)."""
    if device.type != "cuda" or config.amp == "off":
        if config.amp in ("bf16", "fp16") and device.type != "cuda":
            raise ValueError(f"amp={config.amp} needs CUDA; use amp=off or auto on {device.type}")
        return None
    if config.amp == "bf16" or (config.amp == "auto" and torch.cuda.is_bf16_supported()):
        return torch.bfloat16
    return torch.float16


def rng_state() -> dict:
    state = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def clock(config) -> Callable[[], float]:
    """The clock that budgets are counted on: ``time.perf_counter`` (wall) or ``time.process_time``."""
    name = getattr(config, "clock", "wall")
    if name not in ("wall", "process"):
        raise ValueError(f"clock must be 'wall' or 'process', got {name!r}")
    return time.perf_counter if name == "wall" else time.process_time


@dataclass
class Task:
    """What one capstone gives the shared loop.

    ``batches(epoch)`` lists the batches of an epoch as lists of sentence indices; ``loss(net, rows)``
    returns the summed loss of those sentences and the number of predicted tokens. ``saved`` goes
    into every checkpoint (tokenizer, corpus), ``describe`` into the log's start event.
    """

    model: nn.Module
    batches: Callable[[int], list[list[int]]]
    loss: Callable[[nn.Module, list[int]], tuple[Tensor, int]]
    corpus_label: str
    saved: dict = field(default_factory=dict)
    describe: dict = field(default_factory=dict)


def check_resumable(config, saved_config: dict, may_change) -> None:
    """Refuse to resume when a field that shapes the weights differs from the saved run."""
    saved = type(config).from_saved(saved_config)
    differing = [f"{f.name} (saved {getattr(saved, f.name)!r}, given {getattr(config, f.name)!r})"
                 for f in dataclasses.fields(config)
                 if f.name not in may_change and getattr(saved, f.name) != getattr(config, f.name)]
    if differing:
        raise ValueError(f"cannot resume with a different configuration: {', '.join(differing)} changed")


# start-loop
def run_training(config, out_dir: Path, setup: Callable[[object, dict | None, torch.device], Task], *,
                 checkpoint_format: str, may_change, advice: str, resume: bool = False, progress: bool = True,
                 echo=None, pause_at_step: int | None = None) -> dict:
    """Train ``setup(config, state, device)``'s task until a budget is used up; see :mod:`attnlab.training`.

    ``setup`` is called after the seeds are set (so the model's initialisation is reproducible) with
    the resumed checkpoint as ``state`` (None for a new run). Writes into ``out_dir``: ``config.json``;
    ``train_log.jsonl`` (loss per predicted token, learning rate, tokens/s); ``checkpoint.pt``
    (everything needed to resume, replaced atomically after each snapshot and at the end) and
    ``snapshot-stepNNNNNNN.pt`` every ``snapshot_minutes`` of training. A resumed run continues exactly
    as if it had not stopped (on CPU: bit for bit).

    Under ``torchrun`` (``WORLD_SIZE`` > 1) each batch is split by sentences across processes and the
    loss divided by the token count of the whole batch, so the update equals one process's.

    ``pause_at_step`` ends this session at that step (if the budget has not ended it before), with
    ``checkpoint.pt`` written as at the end: the budget, and so the schedule laid out over it, stay
    those of the whole run, and ``resume=True`` carries on as if nothing had stopped.

    Returns a summary: steps, epochs, training seconds, predicted tokens per second, final loss.
    """
    out_dir = Path(out_dir)
    now = clock(config)
    world, rank = int(os.environ.get("WORLD_SIZE", "1")), int(os.environ.get("RANK", "0"))
    distributed = world > 1
    if distributed and not dist.is_initialized():
        dist.init_process_group("nccl" if torch.cuda.is_available() and config.device != "cpu" else "gloo")
    device = get_device(config.device)
    if distributed and device.type == "cuda":
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
    main_process = rank == 0
    ckpt_path = out_dir / "checkpoint.pt"
    if main_process:
        out_dir.mkdir(parents=True, exist_ok=True)

    state = None
    if resume:
        state = read_checkpoint(ckpt_path, checkpoint_format, advice)
        # the budget may grow on resume; everything that shapes the weights must match the interrupted run
        check_resumable(config, state["config"], may_change)
        used_up = reached_budget(config, state["step"], state["elapsed"])
        if used_up:  # budgets are totals over the whole run: nothing to do, and nothing is written
            done = (f"step {state['step']}" if used_up == "max_steps"
                    else f"{state['elapsed'] / 60:.3g} minutes of training")
            raise ValueError(f"budget already reached: {done} of {used_up}={getattr(config, used_up)}; "
                             "give a larger total")
    torch.manual_seed(config.seed)
    random.seed(config.seed)
    task = setup(config, state, device)
    model = task.model
    if config.optimizer == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=config.peak_lr, betas=config.betas, eps=config.adam_eps)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=config.peak_lr)
    autocast_dtype = amp_dtype(config, device)
    scaler = torch.amp.GradScaler("cuda", enabled=autocast_dtype == torch.float16)
    step, epoch, batch_index, elapsed, tokens_seen = 0, 0, 0, 0.0, 0
    if state is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scaler.load_state_dict(state["scaler"])
        step, epoch, batch_index = state["step"], state["epoch"], state["batch_index"]
        elapsed, tokens_seen = state["elapsed"], state["tokens_seen"]
    net = nn.parallel.DistributedDataParallel(model) if distributed else model
    if config.compile:
        net = torch.compile(net, dynamic=True)  # batches vary in shape: one graph for all of them
    log = JsonlLog(out_dir / "train_log.jsonl" if main_process else None, echo if main_process else None)
    if main_process and state is None:
        (out_dir / "config.json").write_text(json.dumps({"config": dataclasses.asdict(config), "corpus": task.corpus_label,
                                                         "world_size": world, "device": str(device)}, indent=1))
        log({"event": "start", "seed": config.seed, **task.describe,
             "parameters": sum(p.numel() for p in model.parameters()),
             "device": str(device), "world_size": world, "amp": str(autocast_dtype)})

    def checkpoint(path: Path, full: bool) -> None:
        record = {"format": checkpoint_format, "config": dataclasses.asdict(config), **task.saved,
                  "model": model.state_dict(), "step": step, "epoch": epoch, "elapsed": elapsed,
                  "tokens_seen": tokens_seen}
        if full:
            record.update(optimizer=optimizer.state_dict(), scaler=scaler.state_dict(), batch_index=batch_index,
                          rng=rng_state())
        atomic_save(record, path)

    if state is not None:
        set_rng_state(state["rng"])
        saved = type(config).from_saved(state["config"])
        resumed = {"event": "resume", "step": step, "elapsed_s": round(elapsed, 1),
                   "next_lr": config.peak_lr * lr_factor(config, step, elapsed)}
        if config.schedule != "inverse_sqrt" and (saved.minutes, saved.max_steps) != (config.minutes, config.max_steps):
            # the decay is laid out over the budget: a new total lays the rest of it out again
            resumed["schedule"] = (f"{config.schedule} decay laid out again over the new budget "
                                   f"(minutes={config.minutes}, max_steps={config.max_steps})")
        log(resumed)
    budget_s = math.inf if config.minutes is None else config.minutes * 60
    max_steps = math.inf if config.max_steps is None else config.max_steps
    session_end = max_steps if pause_at_step is None else min(max_steps, pause_at_step)
    next_snapshot = (math.floor(elapsed / 60 / config.snapshot_minutes) + 1) * config.snapshot_minutes \
        if config.snapshot_minutes else math.inf
    bar = None
    if progress and main_process:
        from tqdm.auto import tqdm
        bar = tqdm(total=None if config.max_steps is None else config.max_steps, initial=step, unit="step")
    interval_loss, interval_tokens, interval_start = 0.0, 0, now()
    last_loss = math.nan
    batches: list[list[int]] = []
    model.train()
    stop = elapsed >= budget_s or step >= session_end
    while not stop:
        batches = task.batches(epoch)
        if distributed:  # every process needs at least one sentence
            batches = [b for b in batches if len(b) >= world]
        while batch_index < len(batches):
            started = now()
            lr = config.peak_lr * lr_factor(config, step, elapsed)
            for group in optimizer.param_groups:
                group["lr"] = lr
            rows = batches[batch_index][rank::world]
            with torch.autocast(device.type, dtype=autocast_dtype or torch.float32, enabled=autocast_dtype is not None):
                loss_sum, n_tokens = task.loss(net, rows)
            total_tokens = n_tokens
            if distributed:
                count = torch.tensor([n_tokens], device=device)
                dist.all_reduce(count)
                total_tokens = int(count)
            # DDP averages gradients over processes; multiply by world so the result is sum / all tokens
            scaler.scale(loss_sum * world / total_tokens).backward()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), config.clip_norm)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            batch_index += 1
            tokens_seen += total_tokens
            interval_loss += loss_sum.item()
            interval_tokens += n_tokens
            if distributed:  # all processes agree on the clock so they stop at the same step
                seconds = torch.tensor([now() - started], dtype=torch.float64, device=device)
                dist.all_reduce(seconds, op=dist.ReduceOp.MAX)
                elapsed += float(seconds)
            else:
                elapsed += now() - started
            if step % config.log_every == 0:
                t = now()
                last_loss = interval_loss / max(interval_tokens, 1)
                rate = interval_tokens * world / (t - interval_start)
                log({"step": step, "epoch": epoch, "loss": round(last_loss, 4), "lr": lr,
                     "tokens_per_s": round(rate, 1), "elapsed_s": round(elapsed, 1)})
                if bar is not None:
                    bar.set_postfix(loss=f"{last_loss:.3f}", tok_s=f"{rate:.0f}")
                interval_loss, interval_tokens, interval_start = 0.0, 0, t
            if bar is not None:
                bar.update(1)
            if elapsed / 60 >= next_snapshot:
                if main_process:
                    checkpoint(out_dir / f"snapshot-step{step:07d}.pt", full=False)
                    checkpoint(ckpt_path, full=True)
                while elapsed / 60 >= next_snapshot:
                    next_snapshot += config.snapshot_minutes
            if elapsed >= budget_s or step >= session_end:
                stop = True
                break
        if not stop:
            epoch += 1
            batch_index = 0
    if bar is not None:
        bar.close()
    if interval_tokens:
        last_loss = interval_loss / interval_tokens
    if main_process:
        checkpoint(ckpt_path, full=True)
    summary = {"event": "end", "steps": step, "epochs": round(epoch + batch_index / max(len(batches), 1), 2)
               if step else 0, "train_seconds": round(elapsed, 1), "target_tokens": tokens_seen,
               "tokens_per_s": round(tokens_seen / elapsed, 1) if elapsed else math.nan,
               "last_loss": round(last_loss, 4) if not math.isnan(last_loss) else None, "corpus": task.corpus_label}
    log(summary)
    if distributed:
        dist.barrier()
    return summary
# end-loop
