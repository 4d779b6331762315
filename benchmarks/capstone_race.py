"""Time to quality, side by side: the capstone as `attnlab-translate train` trains it, against the plain
`nn.Transformer` recipe, on the same data, BPE, batches, budget and evaluation, in one run.

* attnlab: the defaults of `attnlab-translate train` (Seq2SeqTransformer, the schedule laid out over
  the budget: warm-up, then cosine decay to 0 at the end of --minutes).
* torch: `benchmarks/capstone.py`'s TorchSeq2Seq (nn.Transformer with the same embeddings, width,
  depth, label smoothing, Adam and clipping) with the paper's recipe as tutorials write it, as this
  course also trained before issue #21: linear warm-up over --torch-warmup-steps, then 1/sqrt(step),
  peak --torch-peak-lr, batches of --torch-max-tokens tokens, dropout --torch-dropout.

Both train for --minutes of training time (the shared loop's clock), one after the other, or with
--parallel at the same time in two processes (then give each one thread and count --clock process,
CPU seconds of each process, so that neither is charged for the other's load), keeping a snapshot
at every --every minutes; then every snapshot of both is scored with greedy sacreBLEU on
Multi30k test2016. Prints BLEU at 5, 10 and 15 minutes for both and the lead, attnlab - torch.

    ATTNLAB_DATA=../shared/data python benchmarks/capstone_race.py --minutes 15 --every 5
    ATTNLAB_DATA=../shared/data python benchmarks/capstone_race.py --minutes 15 --every 5 --parallel --threads 1 --clock process
    python benchmarks/capstone_race.py --minutes 0.2 --every 0.1 --corpus embedded --limit 50 --set d_model=32,d_ff=64
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capstone import TorchSeq2Seq  # noqa: E402  (the sibling benchmark's model)

from attnlab.results import write_results  # noqa: E402
from attnlab.training import run_training  # noqa: E402
from attnlab.training_cli import parse_overrides  # noqa: E402
from attnlab.translate.data import load_corpus  # noqa: E402
from attnlab.translate.evaluation import corpus_bleu, translate  # noqa: E402
from attnlab.translate.tokens import load_bpe  # noqa: E402
from attnlab.translate.train import (CHECKPOINT_FORMAT, RESUME_MAY_CHANGE, TrainConfig, build_model,  # noqa: E402
                                     load_checkpoint, train, translation_task)


def torch_task(config, state, device):
    """The translation task with its model replaced by nn.Transformer (initialised from the same seed)."""
    task = translation_task(config, state, device)
    vocab = load_bpe(task.saved["tokenizer"]).get_vocab_size()
    torch.manual_seed(config.seed)
    task.model = TorchSeq2Seq(vocab, config, device)
    return task


def train_arm(name: str, config: TrainConfig, run: Path, threads: int | None) -> dict:
    """Train one side of the race into ``run``; its summary."""
    if threads:
        torch.set_num_threads(threads)
    if name == "attnlab":
        return train(config, run, progress=False)
    return run_training(config, run, torch_task, checkpoint_format=CHECKPOINT_FORMAT, may_change=RESUME_MAY_CHANGE,
                        advice="run benchmarks/capstone_race.py", progress=False)


def _die_with_parent(parent: int) -> None:
    """Pool initializer: on Linux, ask the kernel to end this worker when the race's main process
    (pid ``parent``) dies, so that killing the race does not leave two trainings running; and end
    at once if it died while this worker was starting, before the request could be made."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("--every", type=float, default=5.0, help="snapshot (and score) every N minutes")
    parser.add_argument("--clock", choices=("wall", "process"), default="wall")
    parser.add_argument("--corpus", default="multi30k")
    parser.add_argument("--torch-peak-lr", type=float, default=1.2e-3)
    parser.add_argument("--torch-warmup-steps", type=int, default=800)
    parser.add_argument("--torch-max-tokens", type=int, default=4000, help="tokens per batch of the torch recipe")
    parser.add_argument("--torch-dropout", type=float, default=0.1, help="dropout of the torch recipe (the paper's)")
    parser.add_argument("--limit", type=int, default=None, help="score only the first N test sentences")
    parser.add_argument("--parallel", action="store_true",
                        help="train both at once, one process each (use --threads 1 and --clock process on 2 cores)")
    parser.add_argument("--threads", type=int, default=None, help="threads per training process (default: torch's)")
    parser.add_argument("--set", default="", help="field=value,... for both models (other sizes, smoke tests)")
    parser.add_argument("--runs", type=Path, default=Path("runs/race"))
    parser.add_argument("--out", type=Path, default=Path("experiments/results/bench_capstone_race.json"))
    args = parser.parse_args()
    wall = time.perf_counter()
    for name in ("attnlab", "torch"):  # snapshots of an earlier race would be scored as this one's
        if any((args.runs / name).glob("*.pt")):
            raise SystemExit(f"capstone_race: {args.runs / name} holds checkpoints of an earlier run; "
                             "delete it or give another --runs")
    common = dict(**parse_overrides(args.set, TrainConfig), corpus=args.corpus, minutes=args.minutes, snapshot_minutes=args.every, clock=args.clock,
                  device="cpu" if not torch.cuda.is_available() else "auto")
    configs = {"attnlab": TrainConfig(**common),
               "torch": TrainConfig(**{**common, "max_tokens": args.torch_max_tokens, "dropout": args.torch_dropout},
                                    schedule="inverse_sqrt", peak_lr=args.torch_peak_lr,
                                    warmup_steps=args.torch_warmup_steps)}
    if args.parallel:  # both at once, one process each with --threads threads: the same load hits both
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(2, initializer=_die_with_parent, initargs=(os.getpid(),)) as pool:
            jobs = {name: pool.apply_async(train_arm, (name, config, args.runs / name, args.threads))
                    for name, config in configs.items()}
            summaries = {name: job.get() for name, job in jobs.items()}
    else:
        summaries = {name: train_arm(name, config, args.runs / name, args.threads) for name, config in configs.items()}
    final = load_checkpoint(args.runs / "attnlab" / "checkpoint.pt")
    tokenizer = load_bpe(final["tokenizer"])
    corpus = load_corpus(final["corpus_name"], "de-en")
    sources, references = corpus.source["test_2016_flickr"][:args.limit], corpus.target["test_2016_flickr"][:args.limit]
    vocab = tokenizer.get_vocab_size()
    curves: dict[str, list[dict]] = {}
    for name, config in configs.items():
        run = args.runs / name
        points = sorted(run.glob("snapshot-step*.pt"))
        end = load_checkpoint(run / "checkpoint.pt")
        if not points or load_checkpoint(points[-1])["step"] != end["step"]:
            points.append(run / "checkpoint.pt")  # the end of the budget, when no snapshot fell on it
        curves[name] = []
        for path in points:
            snap = load_checkpoint(path)
            model = build_model(config, vocab) if name == "attnlab" else TorchSeq2Seq(vocab, config, "cpu")
            model.load_state_dict(snap["model"])
            model.eval()
            start = time.perf_counter()
            with torch.inference_mode():
                hyps = translate(model, tokenizer, sources, 1)
            bleu, signature = corpus_bleu(hyps, references)
            curves[name].append({"minutes": round(snap["elapsed"] / 60, 2), "step": snap["step"], "bleu": round(bleu, 2),
                                 "decode_seconds": round(time.perf_counter() - start, 1), "signature": signature})
            print(f"{name:8s} {snap['elapsed'] / 60:6.2f} min  step {snap['step']:5d}  greedy BLEU {bleu:5.2f}", file=sys.stderr)
    print(f"{'minutes':>8} {'attnlab':>8} {'torch':>8} {'lead':>6}")
    for a, t in zip(curves["attnlab"], curves["torch"]):
        print(f"{a['minutes']:8.2f} {a['bleu']:8.2f} {t['bleu']:8.2f} {a['bleu'] - t['bleu']:+6.2f}")
    results = {"corpus": final["corpus"], "test_sentences": len(sources), "decoding": "greedy",
               "train": summaries, "curves": curves,
               "lead_at_end": round(curves["attnlab"][-1]["bleu"] - curves["torch"][-1]["bleu"], 2)}
    write_results(args.out, "benchmarks/capstone_race.py", None,
                  {"args": {k: str(v) for k, v in vars(args).items()},
                   "configs": {n: dataclasses.asdict(c) for n, c in configs.items()}}, results, time.perf_counter() - wall)


if __name__ == "__main__":
    main()
