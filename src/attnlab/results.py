"""Results files written by the scripts in ``experiments/`` and read by the book's pages.

Each file records the command that produced it, the date, the hardware and the configuration,
so that every number a page shows from it can be traced and regenerated.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
from pathlib import Path

import torch


def hardware_description() -> str:
    """One line naming the processor, core count, PyTorch version and threads (and the GPU, if any)."""
    text = f"{platform.machine()} CPU, {os.cpu_count()} cores, torch {torch.__version__} ({torch.get_num_threads()} threads)"
    if torch.cuda.is_available():
        text += f", GPU {torch.cuda.get_device_name(0)}"
    return text


def write_results(path: Path, script: str, argv: list[str] | None, config: dict, results: dict,
                  wall_seconds: float | None = None) -> dict:
    """Write a results record as JSON, atomically (a reader never sees a half-written file)."""
    args = sys.argv[1:] if argv is None else argv
    record = {
        "command": " ".join(["python", script, *args]),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "hardware": hardware_description(),
        "config": config,
        "results": results,
    }
    if wall_seconds is not None:
        record["wall_seconds"] = round(wall_seconds, 1)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record) + "\n", encoding="utf-8")
    tmp.replace(path)
    return record
