"""Training the translation model: label-smoothed loss, Adam with a warm-up and a decay laid out over
the budget (or the paper's inverse square root), gradient clipping, mixed precision on CUDA,
checkpoints that resume exactly, DDP.

The loop itself is :func:`attnlab.training.run_training`, shared with chapter 9's language model;
this module gives it the translation task. Run it with ``attnlab-translate train`` (see
:mod:`attnlab.translate.cli`); the chapter calls :func:`train` directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
from torch import Tensor, nn

from attnlab.training import LoopConfig, Task, inverse_sqrt_schedule, reached_budget, read_checkpoint, run_training
from attnlab.transformer import Seq2SeqTransformer
from attnlab.translate.data import load_corpus
from attnlab.translate.tokens import PAD, encode, load_bpe, make_batch, token_batches, train_bpe

__all__ = ["CHECKPOINT_FORMAT", "LONG_BUDGET_MINUTES", "LONG_BUDGET_STEPS", "RESUME_MAY_CHANGE", "TrainConfig",
           "average_weights", "budget_dropout", "build_model",
           "inverse_sqrt_schedule", "label_smoothed_loss", "load_checkpoint", "load_model", "reached_budget", "train"]

CHECKPOINT_FORMAT = "attnlab-translate/1"


@dataclass
class TrainConfig(LoopConfig):
    """Everything that defines a run; saved in every checkpoint and in ``config.json``. The loop's
    fields (budgets, optimizer, schedule, device, ...) are :class:`attnlab.training.LoopConfig`'s."""

    corpus: str = "auto"  # "multi30k", "embedded" (generated, offline) or "auto" (Multi30k when available)
    direction: str = "de-en"  # "de-en" or "en-de"
    vocab_size: int = 8000  # joint BPE vocabulary of both languages
    d_model: int = 256  # model width D
    num_heads: int = 4  # attention heads H (D divisible by H)
    encoder_layers: int = 3  # encoder blocks
    decoder_layers: int = 3  # decoder blocks
    d_ff: int = 1024  # width of the feed-forward layer
    dropout: float | None = None  # dropout probability; none: follows the budget (0 for short budgets, 0.1, the paper's, for long ones; see chapter 8)
    norm_first: bool = False  # Pre-LN blocks instead of the paper's Post-LN
    label_smoothing: float = 0.1  # label-smoothing epsilon of the loss
    max_tokens: int = 1500  # tokens per batch (split across processes with DDP), padding included
    max_sentence_tokens: int = 128  # longer sentences are cut to this many BPE tokens
    peak_lr: float = 2e-3  # learning rate at the end of the warm-up

    def __post_init__(self):
        super().__post_init__()
        if self.dropout is None:
            self.dropout = budget_dropout(self.minutes, self.max_steps)
        if not 0 <= self.dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout!r}")


# start-budget-dropout
# Budgets longer than these get dropout (chapter 8, "Dropout follows the budget"): measured on two CPU
# cores, a 15-minute run is best without it and a 45-minute one over-fits without it.
LONG_BUDGET_MINUTES = 30.0
LONG_BUDGET_STEPS = 4000


def budget_dropout(minutes: float | None, max_steps: int | None) -> float:
    """The dropout a run gets when none is given: 0.1 when its budget is long, 0 otherwise. A budget
    is long when every limit it has is above the thresholds (training stops at the first limit)."""
    long_minutes = minutes is None or minutes > LONG_BUDGET_MINUTES
    long_steps = max_steps is None or max_steps > LONG_BUDGET_STEPS
    return 0.1 if long_minutes and long_steps else 0.0
# end-budget-dropout


RESUME_MAY_CHANGE = TrainConfig.RESUME_MAY_CHANGE


def build_model(config: TrainConfig, vocab_size: int, device=None) -> Seq2SeqTransformer:
    return Seq2SeqTransformer(vocab_size, config.d_model, config.num_heads, config.encoder_layers,
                              config.decoder_layers, config.d_ff, config.dropout, norm_first=config.norm_first,
                              tie_embeddings=True, pad_id=PAD, device=device)






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


def load_checkpoint(path: Path, map_location="cpu") -> dict:
    """A checkpoint written by :func:`train`, checked to be one."""
    return read_checkpoint(path, CHECKPOINT_FORMAT, "train one with `attnlab-translate train --out DIR`", map_location)


def load_model(path: Path, device="cpu", average: list[Path] | None = None):
    """``(model, tokenizer, checkpoint)`` ready for decoding (eval mode). With ``average``, the model's
    weights are the mean of those checkpoints' weights (all of the same run)."""
    ckpt = load_checkpoint(path)
    config = TrainConfig.from_saved(ckpt["config"])
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


def translation_task(config: TrainConfig, state: dict | None, device) -> Task:
    """The translation capstone for :func:`attnlab.training.run_training`: the corpus, a joint BPE
    (the checkpoint's on resume), the model, batches by token count and the label-smoothed loss."""
    corpus = load_corpus(config.corpus, config.direction)
    if state is None:
        tokenizer = train_bpe(corpus.source["train"] + corpus.target["train"], config.vocab_size)
    else:
        tokenizer = load_bpe(state["tokenizer"])
    src_ids = encode(tokenizer, corpus.source["train"], config.max_sentence_tokens)
    tgt_ids = encode(tokenizer, corpus.target["train"], config.max_sentence_tokens)
    src_len, tgt_len = [len(s) for s in src_ids], [len(t) for t in tgt_ids]
    model = build_model(config, tokenizer.get_vocab_size(), device)

    def batches(epoch: int) -> list[list[int]]:
        return token_batches(src_len, tgt_len, config.max_tokens,
                             generator=torch.Generator().manual_seed(config.seed * 1_000_003 + epoch))

    def loss(net: nn.Module, rows: list[int]) -> tuple[Tensor, int]:
        src, tgt_in, tgt_out = (t.to(device, non_blocking=True)
                                for t in make_batch([src_ids[i] for i in rows], [tgt_ids[i] for i in rows]))
        return label_smoothed_loss(net(src, tgt_in), tgt_out, config.label_smoothing)

    return Task(model, batches, loss, corpus.label,
                saved={"tokenizer": tokenizer.to_str(), "corpus": corpus.label, "corpus_name": corpus.name},
                describe={"corpus": corpus.label, "train_pairs": len(src_ids), "vocab": tokenizer.get_vocab_size()})


# start-train
def train(config: TrainConfig, out_dir: Path, resume: bool = False, progress: bool = True,
          echo=None, pause_at_step: int | None = None) -> dict:
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
    return run_training(config, out_dir, translation_task, checkpoint_format=CHECKPOINT_FORMAT,
                        may_change=RESUME_MAY_CHANGE, advice="train one with `attnlab-translate train --out DIR`",
                        resume=resume, progress=progress, echo=echo,
                        pause_at_step=pause_at_step)
# end-train
