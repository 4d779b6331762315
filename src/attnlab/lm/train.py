"""Training and evaluating the chapter 9 language model on the English side of Multi30k.

The corpus, its checksums and the embedded offline fallback are chapter 8's
(:func:`attnlab.translate.data.load_corpus`); the BPE and the batching by token count are chapter
8's too (:mod:`attnlab.translate.tokens`), and so is the loop (:func:`attnlab.training.run_training`).
Each sentence is one sequence: the model reads ``<bos> w1 … wn`` and must predict ``w1 … wn <eos>``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import Tensor, nn

from attnlab.lm.model import DecoderLM, LMConfig
from attnlab.training import LoopConfig, Task, read_checkpoint, run_training
from attnlab.translate.data import load_corpus
from attnlab.translate.tokens import PAD, encode, load_bpe, make_batch, token_batches, train_bpe
from attnlab.translate.train import label_smoothed_loss

CHECKPOINT_FORMAT = "attnlab-lm/1"
ADVICE = "train one with `attnlab-lm train --out DIR`"
ARCHITECTURE = [f.name for f in dataclasses.fields(LMConfig) if f.name not in ("vocab_size", "max_len")]


@dataclass
class LMTrainConfig(LoopConfig):
    """Everything that defines a language-model run; saved in every checkpoint and in ``config.json``.
    The loop's fields (budgets, optimizer, schedule, device, ...) are :class:`attnlab.training.LoopConfig`'s."""

    corpus: str = "auto"  # "multi30k", "embedded" (generated, offline) or "auto" (Multi30k when available); English side
    vocab_size: int = 4000  # BPE vocabulary of the English sentences
    d_model: int = 128  # model width D
    num_layers: int = 4  # decoder blocks
    num_heads: int = 4  # query heads H
    num_kv_heads: int | None = None  # key/value heads G (default: H)
    ffn_hidden: int | None = None  # FFN width (default: 4D for ReLU, Llama's rounding of 8D/3 for SwiGLU)
    multiple_of: int = 32  # SwiGLU width rounded up to a multiple of this
    norm: str = "rmsnorm"  # "rmsnorm" or "layernorm"
    norm_first: bool = True  # Pre-LN blocks (False: the 2017 Post-LN)
    ffn: str = "swiglu"  # "swiglu" or "relu"
    position: str = "rope"  # "rope" or "sinusoidal"
    bias: bool = False  # biases in the attention and FFN projections
    tie_embeddings: bool = True  # output layer shares the embedding matrix
    rope_base: float = 10000.0  # RoPE base
    rope_pairing: str = "half"  # "half" (rotate_half) or "adjacent" pairs
    norm_eps: float = 1e-6  # epsilon of the norms
    dropout: float = 0.1  # dropout probability
    max_tokens: int = 4000  # tokens per batch (split across processes with DDP), padding included
    max_sentence_tokens: int = 64  # longer sentences are cut to this many BPE tokens
    peak_lr: float = 2e-3  # learning rate at the end of the warm-up
    schedule: str = "inverse_sqrt"  # "inverse_sqrt": the paper's; "cosine" or "linear": warm-up, then decay to 0 at the end of the budget
    warmup_steps: int = 200  # inverse_sqrt: optimizer steps of linear warm-up (at least 1)

    def __post_init__(self):
        super().__post_init__()
        self.model_config(8)  # architecture errors now, not after the corpus is read

    def model_config(self, vocab_size: int) -> LMConfig:
        """The :class:`LMConfig` of this run for a tokenizer of ``vocab_size`` ids."""
        return LMConfig(vocab_size, **{n: getattr(self, n) for n in ARCHITECTURE})


RESUME_MAY_CHANGE = LMTrainConfig.RESUME_MAY_CHANGE


# start-data
def english_sentences(corpus: str = "auto") -> tuple[dict[str, list[str]], str, str]:
    """The English side of chapter 8's corpus, per split, with its label and name."""
    parallel = load_corpus(corpus, "de-en")
    return parallel.target, f"{parallel.label}, English side", parallel.name


def lm_batch(ids: list[list[int]]) -> tuple[Tensor, Tensor]:
    """Inputs ``<bos> w1 … wn`` and targets ``w1 … wn <eos>`` of sentences given as ``w1 … wn <eos>``,
    right-padded with ``<pad>`` (ignored by the loss).

    Shape:
        -> ``(B, T)``, ``(B, T)``
    """
    _, inputs, targets = make_batch(ids, ids)
    return inputs, targets


def lm_loss(model: nn.Module, inputs: Tensor, targets: Tensor) -> tuple[Tensor, int]:
    """Summed cross-entropy of predicting every next token (padding ignored), and the number of tokens."""
    return label_smoothed_loss(model(inputs), targets, smoothing=0.0, pad_id=PAD)
# end-data


@torch.no_grad()
def perplexity(model: nn.Module, ids: list[list[int]], max_tokens: int = 4000, device="cpu") -> float:
    """``exp`` of the mean next-token cross-entropy over all tokens of ``ids`` (``<eos>`` included)."""
    was_training = model.training
    model.eval()
    lengths = [len(s) for s in ids]
    total, count = 0.0, 0
    for rows in token_batches(lengths, lengths, max_tokens):
        inputs, targets = lm_batch([ids[i] for i in rows])
        loss, n = lm_loss(model, inputs.to(device), targets.to(device))
        total, count = total + float(loss), count + n
    model.train(was_training)
    return math.exp(total / count)


def lm_task(config: LMTrainConfig, state: dict | None, device) -> Task:
    """The language-model capstone for :func:`attnlab.training.run_training`."""
    splits, label, name = english_sentences(config.corpus)
    tokenizer = train_bpe(splits["train"], config.vocab_size) if state is None else load_bpe(state["tokenizer"])
    ids = encode(tokenizer, splits["train"], config.max_sentence_tokens)
    lengths = [len(s) for s in ids]
    model = DecoderLM(config.model_config(tokenizer.get_vocab_size()), device=device)

    def batches(epoch: int) -> list[list[int]]:
        return token_batches(lengths, lengths, config.max_tokens,
                             generator=torch.Generator().manual_seed(config.seed * 1_000_003 + epoch))

    def loss(net: nn.Module, rows: list[int]) -> tuple[Tensor, int]:
        inputs, targets = lm_batch([ids[i] for i in rows])
        return lm_loss(net, inputs.to(device, non_blocking=True), targets.to(device, non_blocking=True))

    return Task(model, batches, loss, label,
                saved={"tokenizer": tokenizer.to_str(), "corpus": label, "corpus_name": name},
                describe={"corpus": label, "train_sentences": len(ids), "vocab": tokenizer.get_vocab_size()})


# start-train
def train(config: LMTrainConfig, out_dir: Path, resume: bool = False, progress: bool = True, echo=None,
          pause_at_step: int | None = None) -> dict:
    """Train the language model with the shared loop (budgets, checkpoints, resume, snapshots, AMP, DDP,
    progress, JSONL log); writes the same files into ``out_dir`` as ``attnlab-translate train``."""
    return run_training(config, out_dir, lm_task, checkpoint_format=CHECKPOINT_FORMAT, may_change=RESUME_MAY_CHANGE,
                        advice=ADVICE, resume=resume, progress=progress, echo=echo,
                        pause_at_step=pause_at_step)
# end-train


def load_checkpoint(path: Path, map_location="cpu") -> dict:
    """A checkpoint written by :func:`train`, checked to be one."""
    return read_checkpoint(path, CHECKPOINT_FORMAT, ADVICE, map_location)


def load_model(path: Path, device="cpu"):
    """``(model, tokenizer, checkpoint)`` of a checkpoint, in eval mode."""
    ckpt = load_checkpoint(path)
    config = LMTrainConfig.from_saved(ckpt["config"])
    tokenizer = load_bpe(ckpt["tokenizer"])
    model = DecoderLM(config.model_config(tokenizer.get_vocab_size()))
    model.load_state_dict(ckpt["model"])
    return model.to(device).eval(), tokenizer, ckpt


def evaluate(path: Path, splits=("val", "test_2016_flickr"), device="cpu", max_tokens: int = 4000) -> dict:
    """Perplexity of a checkpoint on splits of its corpus (English side)."""
    model, tokenizer, ckpt = load_model(path, device)
    config = LMTrainConfig.from_saved(ckpt["config"])
    sentences, label, _ = english_sentences(ckpt["corpus_name"])
    result = {"corpus": label, "train_steps": ckpt["step"], "train_seconds": round(ckpt["elapsed"], 1)}
    for split in splits:
        ids = encode(tokenizer, sentences[split], config.max_sentence_tokens)
        result[f"{split}_perplexity"] = round(perplexity(model, ids, max_tokens, device), 3)
        result[f"{split}_tokens"] = sum(len(s) for s in ids)
    return result
