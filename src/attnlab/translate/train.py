"""Training the translation model: label-smoothed loss, Adam with warm-up and inverse-square-root
decay, gradient clipping, mixed precision on CUDA, checkpoints that resume exactly, DDP.

Run it with ``attnlab-translate train`` (see :mod:`attnlab.translate.cli`); the chapter calls
:func:`train` directly.
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

import torch
import torch.distributed as dist
from torch import Tensor, nn

from attnlab.device import get_device
from attnlab.transformer import Seq2SeqTransformer
from attnlab.translate.data import load_corpus
from attnlab.translate.tokens import PAD, encode, load_bpe, make_batch, token_batches, train_bpe

CHECKPOINT_FORMAT = "attnlab-translate/1"
# what a resumed run may change: the budgets, where it runs and how often it logs and keeps snapshots
RESUME_MAY_CHANGE = ("minutes", "max_steps", "device", "log_every", "snapshot_minutes")


@dataclass
class TrainConfig:
    """Everything that defines a run; saved in every checkpoint and in ``config.json``."""

    corpus: str = "auto"  # "multi30k", "embedded" (generated, offline) or "auto" (Multi30k when available)
    direction: str = "de-en"  # "de-en" or "en-de"
    vocab_size: int = 8000  # joint BPE vocabulary of both languages
    d_model: int = 256  # model width D
    num_heads: int = 4  # attention heads H (D divisible by H)
    encoder_layers: int = 3  # encoder blocks
    decoder_layers: int = 3  # decoder blocks
    d_ff: int = 1024  # width of the feed-forward layer
    dropout: float = 0.1  # dropout probability
    norm_first: bool = False  # Pre-LN blocks instead of the paper's Post-LN
    label_smoothing: float = 0.1  # label-smoothing epsilon of the loss
    max_tokens: int = 4000  # tokens per batch (per process with DDP), padding included
    max_sentence_tokens: int = 128  # longer sentences are cut to this many BPE tokens
    optimizer: str = "adam"  # "adam" (the paper's) or "sgd" (plain steps: updates are the gradients, scaled)
    peak_lr: float = 1.2e-3  # learning rate at the end of the warm-up
    warmup_steps: int = 800  # optimizer steps of linear warm-up (at least 1)
    betas: tuple[float, float] = (0.9, 0.98)  # Adam's beta1 and beta2
    adam_eps: float = 1e-9  # Adam's epsilon
    clip_norm: float = 1.0  # clip the gradient to this global norm
    seed: int = 0  # seed of initialisation, dropout and batch order
    minutes: float | None = None  # training-time budget in minutes, counted over the whole run (across resumes)
    max_steps: int | None = None  # step budget, counted over the whole run (across resumes)
    snapshot_minutes: float | None = 5.0  # keep the weights every N minutes of training (curves, averaging); 0: never
    log_every: int = 50  # write loss, learning rate and tokens/s every N steps
    amp: str = "auto"  # "auto" (bf16 or fp16 on CUDA, off on CPU), "off", "bf16", "fp16"
    device: str = "auto"  # "auto" (CUDA, then MPS, then CPU), "cpu", "cuda", "cuda:N" or "mps"
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        self.betas = tuple(self.betas)
        if self.minutes is None and self.max_steps is None:
            raise ValueError("give a training budget: minutes, max_steps, or both")
        if self.amp not in ("auto", "off", "bf16", "fp16"):
            raise ValueError(f"amp must be auto, off, bf16 or fp16, got {self.amp!r}")
        if self.optimizer not in ("adam", "sgd"):
            raise ValueError(f"optimizer must be adam or sgd, got {self.optimizer!r}")
        if self.warmup_steps < 1:
            raise ValueError("warmup_steps must be at least 1")


def reached_budget(config: TrainConfig, step: int, elapsed: float) -> str | None:
    """The budget that a run at ``step`` after ``elapsed`` seconds of training has used up:
    ``"max_steps"``, ``"minutes"`` or None."""
    if config.max_steps is not None and step >= config.max_steps:
        return "max_steps"
    if config.minutes is not None and elapsed >= config.minutes * 60:
        return "minutes"
    return None


def build_model(config: TrainConfig, vocab_size: int, device=None) -> Seq2SeqTransformer:
    return Seq2SeqTransformer(vocab_size, config.d_model, config.num_heads, config.encoder_layers,
                              config.decoder_layers, config.d_ff, config.dropout, norm_first=config.norm_first,
                              tie_embeddings=True, pad_id=PAD, device=device)


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
# end-schedule


# start-loss
def label_smoothed_loss(logits: Tensor, targets: Tensor, smoothing: float = 0.1, pad_id: int = PAD) -> tuple[Tensor, int]:
    """Sum of the label-smoothed cross-entropy over non-padding positions, and their count.

    With smoothing ε the target distribution puts 1 − ε on the right token and spreads ε evenly
    over the whole vocabulary (PyTorch's definition). Returning the sum lets the caller divide by
    the number of tokens in the whole batch, also when the batch is split across processes.

    Shape:
        logits: ``(B, T, V)``, targets: ``(B, T)`` -> scalar, int
    """
    loss_fn = nn.CrossEntropyLoss(ignore_index=pad_id, label_smoothing=smoothing, reduction="sum")
    loss = loss_fn(logits.reshape(-1, logits.shape[-1]).float(), targets.reshape(-1))
    return loss, int((targets != pad_id).sum())
# end-loss


def _atomic_save(obj, path: Path) -> None:
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def load_checkpoint(path: Path, map_location="cpu") -> dict:
    """A checkpoint written by :func:`train`, checked to be one."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}; train one with `attnlab-translate train --out DIR`")
    try:
        ckpt = torch.load(path, map_location=map_location, weights_only=False)
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets the same clear message
        raise ValueError(f"{path} is not a readable checkpoint ({type(exc).__name__}: {exc})") from exc
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} is not an attnlab-translate checkpoint (format {CHECKPOINT_FORMAT})")
    return ckpt


def load_model(path: Path, device="cpu", average: list[Path] | None = None):
    """``(model, tokenizer, checkpoint)`` ready for decoding (eval mode). With ``average``, the model's
    weights are the mean of those checkpoints' weights (all of the same run)."""
    ckpt = load_checkpoint(path)
    config = TrainConfig(**ckpt["config"])
    tokenizer = load_bpe(ckpt["tokenizer"])
    model = build_model(config, tokenizer.get_vocab_size())
    state = ckpt["model"] if not average else average_weights([load_checkpoint(p)["model"] for p in average])
    model.load_state_dict(state)
    return model.to(device).eval(), tokenizer, ckpt


def average_weights(states: list[dict]) -> dict:
    """Element-wise mean of several state dicts with the same keys (checkpoint averaging)."""
    if not states:
        raise ValueError("nothing to average")
    keys = states[0].keys()
    for s in states[1:]:
        if s.keys() != keys:
            raise ValueError("checkpoints to average must come from the same model")
    return {k: sum(s[k].double() for s in states).div(len(states)).to(states[0][k].dtype) for k in keys}


class _Log:
    def __init__(self, path: Path | None, echo):
        self.path, self.echo = path, echo

    def __call__(self, record: dict) -> None:
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(record) + "\n")
        if self.echo is not None:
            self.echo(record)


def _amp_dtype(config: TrainConfig, device: torch.device):
    if device.type != "cuda" or config.amp == "off":
        if config.amp in ("bf16", "fp16") and device.type != "cuda":
            raise ValueError(f"amp={config.amp} needs CUDA; use amp=off or auto on {device.type}")
        return None
    if config.amp == "bf16" or (config.amp == "auto" and torch.cuda.is_bf16_supported()):
        return torch.bfloat16
    return torch.float16


def _rng_state() -> dict:
    state = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _set_rng_state(state: dict) -> None:
    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


# start-train
def train(config: TrainConfig, out_dir: Path, resume: bool = False, progress: bool = True,
          echo=None) -> dict:
    """Train until ``config.minutes`` of training time or ``config.max_steps`` steps, whichever first.

    Writes into ``out_dir``: ``config.json``; ``train_log.jsonl`` (loss, learning rate, tokens/s);
    ``checkpoint.pt`` (everything needed to resume, replaced atomically after each snapshot and at
    the end) and ``snapshot-stepNNNNNNN.pt`` every ``snapshot_minutes`` of training. With ``resume`` the
    run continues from ``checkpoint.pt`` exactly as if it had not stopped (on CPU: bit for bit).

    Launched by ``torchrun`` (``WORLD_SIZE`` > 1) it trains with DistributedDataParallel: each batch
    is split by sentences across processes and the loss is divided by the token count of the
    whole batch, so the update equals a single process's on the same batch.

    Returns a summary: steps, epochs, training seconds, target tokens per second, final loss.
    """
    out_dir = Path(out_dir)
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
        state = load_checkpoint(ckpt_path)
        saved = TrainConfig(**state["config"])
        # the budget may grow on resume; everything that shapes the weights must match the interrupted run
        differing = [f"{f.name} (saved {getattr(saved, f.name)!r}, given {getattr(config, f.name)!r})"
                     for f in dataclasses.fields(TrainConfig)
                     if f.name not in RESUME_MAY_CHANGE and getattr(saved, f.name) != getattr(config, f.name)]
        if differing:
            raise ValueError(f"cannot resume with a different configuration: {', '.join(differing)} changed")
        used_up = reached_budget(config, state["step"], state["elapsed"])
        if used_up:  # budgets are totals over the whole run: nothing to do, and nothing is written
            done = (f"step {state['step']}" if used_up == "max_steps"
                    else f"{state['elapsed'] / 60:.3g} minutes of training")
            raise ValueError(f"budget already reached: {done} of {used_up}={getattr(config, used_up)}; "
                             "give a larger total")
        tokenizer = load_bpe(state["tokenizer"])
    torch.manual_seed(config.seed)
    random.seed(config.seed)

    corpus = load_corpus(config.corpus, config.direction)
    if state is None:
        tokenizer = train_bpe(corpus.source["train"] + corpus.target["train"], config.vocab_size)
    src_ids = encode(tokenizer, corpus.source["train"], config.max_sentence_tokens)
    tgt_ids = encode(tokenizer, corpus.target["train"], config.max_sentence_tokens)
    src_len, tgt_len = [len(s) for s in src_ids], [len(t) for t in tgt_ids]

    model = build_model(config, tokenizer.get_vocab_size(), device)
    if config.optimizer == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=config.peak_lr, betas=config.betas, eps=config.adam_eps)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=config.peak_lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, inverse_sqrt_schedule(config.warmup_steps))
    amp_dtype = _amp_dtype(config, device)
    scaler = torch.amp.GradScaler("cuda", enabled=amp_dtype == torch.float16)
    step, epoch, batch_index, elapsed, tokens_seen = 0, 0, 0, 0.0, 0
    if state is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        scaler.load_state_dict(state["scaler"])
        step, epoch, batch_index = state["step"], state["epoch"], state["batch_index"]
        elapsed, tokens_seen = state["elapsed"], state["tokens_seen"]
    net = nn.parallel.DistributedDataParallel(model) if distributed else model
    corpus_label = corpus.label
    log = _Log(out_dir / "train_log.jsonl" if main_process else None, echo if main_process else None)
    if main_process and state is None:
        (out_dir / "config.json").write_text(json.dumps({"config": dataclasses.asdict(config), "corpus": corpus_label,
                                                         "world_size": world, "device": str(device)}, indent=1))
        log({"event": "start", "seed": config.seed, "corpus": corpus_label, "train_pairs": len(src_ids),
             "vocab": tokenizer.get_vocab_size(), "parameters": sum(p.numel() for p in model.parameters()),
             "device": str(device), "world_size": world, "amp": str(amp_dtype)})

    def checkpoint(path: Path, full: bool) -> None:
        record = {"format": CHECKPOINT_FORMAT, "config": dataclasses.asdict(config), "tokenizer": tokenizer.to_str(),
                  "corpus": corpus_label, "corpus_name": corpus.name, "model": model.state_dict(), "step": step, "epoch": epoch,
                  "elapsed": elapsed, "tokens_seen": tokens_seen}
        if full:
            record.update(optimizer=optimizer.state_dict(), scheduler=scheduler.state_dict(),
                          scaler=scaler.state_dict(), batch_index=batch_index, rng=_rng_state())
        _atomic_save(record, path)

    if state is not None:
        _set_rng_state(state["rng"])
    budget_s = math.inf if config.minutes is None else config.minutes * 60
    max_steps = math.inf if config.max_steps is None else config.max_steps
    next_snapshot = (math.floor(elapsed / 60 / config.snapshot_minutes) + 1) * config.snapshot_minutes \
        if config.snapshot_minutes else math.inf
    bar = None
    if progress and main_process:
        from tqdm.auto import tqdm
        bar = tqdm(total=None if config.max_steps is None else config.max_steps, initial=step, unit="step")
    interval_loss, interval_tokens, interval_start = 0.0, 0, time.perf_counter()
    last_loss = math.nan
    batches: list[list[int]] = []
    model.train()
    stop = elapsed >= budget_s or step >= max_steps
    while not stop:
        batches = token_batches(src_len, tgt_len, config.max_tokens,
                                generator=torch.Generator().manual_seed(config.seed * 1_000_003 + epoch))
        if distributed:  # every process needs at least one sentence
            batches = [b for b in batches if len(b) >= world]
        while batch_index < len(batches):
            started = time.perf_counter()
            rows = batches[batch_index][rank::world]
            src, tgt_in, tgt_out = (t.to(device, non_blocking=True)
                                    for t in make_batch([src_ids[i] for i in rows], [tgt_ids[i] for i in rows]))
            with torch.autocast(device.type, dtype=amp_dtype or torch.float32, enabled=amp_dtype is not None):
                loss_sum, n_tokens = label_smoothed_loss(net(src, tgt_in), tgt_out, config.label_smoothing)
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
            scheduler.step()
            step += 1
            batch_index += 1
            tokens_seen += total_tokens
            interval_loss += loss_sum.item()
            interval_tokens += n_tokens
            if distributed:  # all processes agree on the clock so they stop at the same step
                clock = torch.tensor([time.perf_counter() - started], dtype=torch.float64, device=device)
                dist.all_reduce(clock, op=dist.ReduceOp.MAX)
                elapsed += float(clock)
            else:
                elapsed += time.perf_counter() - started
            if step % config.log_every == 0:
                now = time.perf_counter()
                last_loss = interval_loss / max(interval_tokens, 1)
                rate = interval_tokens * world / (now - interval_start)
                log({"step": step, "epoch": epoch, "loss": round(last_loss, 4), "lr": scheduler.get_last_lr()[0],
                     "tokens_per_s": round(rate, 1), "elapsed_s": round(elapsed, 1)})
                if bar is not None:
                    bar.set_postfix(loss=f"{last_loss:.3f}", tok_s=f"{rate:.0f}")
                interval_loss, interval_tokens, interval_start = 0.0, 0, now
            if bar is not None:
                bar.update(1)
            if elapsed / 60 >= next_snapshot:
                if main_process:
                    checkpoint(out_dir / f"snapshot-step{step:07d}.pt", full=False)
                    checkpoint(ckpt_path, full=True)
                while elapsed / 60 >= next_snapshot:
                    next_snapshot += config.snapshot_minutes
            if elapsed >= budget_s or step >= max_steps:
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
               "last_loss": round(last_loss, 4) if not math.isnan(last_loss) else None, "corpus": corpus_label}
    log(summary)
    if distributed:
        dist.barrier()
    return summary
# end-train
