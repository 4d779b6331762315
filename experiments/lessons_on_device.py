"""Run every lesson page's code cells on this machine's device, without Jupyter, and record the outcome.

The book executes its lessons with Jupyter when it is built, on whatever machine builds it (a CPU
in CI). This script answers a narrower question on machines where the book is not built, such as
a GPU box with PyTorch but no Jupyter: does each lesson's code run there? For each
``chapters/*/*.md`` page it takes the ``{code-cell}`` blocks in order and executes them in one
namespace, in a separate process, from the page's folder (as the book build does), with
matplotlib's non-interactive backend. Lessons pick their device with ``attnlab.get_device("auto")``,
so on a CUDA machine they run on the GPU. ``myst_nb.glue`` is replaced by a function that records
what the page glues (numbers and short texts), so the results file holds the numbers the page would
show on this machine.

It writes one results file (command, hardware, date) with, per page: ok / error / timeout, the
seconds, the number of cells run, the glued values, and for a failure the cell and the end of its
traceback.

    python experiments/lessons_on_device.py --out experiments/results/lessons_cuda.json
    python experiments/lessons_on_device.py --pages chapters/02-scaled-attention/index.md --no-write
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time
import traceback
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^(`{3,})\{code-cell\}")


def code_cells(text: str) -> list[str]:
    """The source of each ``{code-cell}`` block of a MyST Markdown notebook, in order, without its
    options (``:key: value`` lines or a ``---`` YAML block at the top of the cell)."""
    cells, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        i += 1
        if not match:
            continue
        fence, body = match.group(1), []
        while i < len(lines) and lines[i].rstrip() != fence:
            body.append(lines[i])
            i += 1
        i += 1
        if body and body[0].strip() == "---":
            end = next((j for j in range(1, len(body)) if body[j].strip() == "---"), None)
            if end is None:
                raise ValueError(f"a code cell's options block opened with --- is never closed: {body[:3]}")
            body = body[end + 1:]
        while body and re.match(r"^:[\w-]+:", body[0]):
            body = body[1:]
        cells.append("\n".join(body))
    return cells


def run_page(page: Path) -> dict:
    """Execute one page's cells in this process; returns the outcome (called in a child process)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    glued: dict[str, object] = {}

    def glue(name, value=None, display=True):
        """Record what the page glues: numbers and short texts as they are, anything else by its type."""
        if isinstance(value, (bool, int, float, str)) and len(str(value)) <= 300:
            glued[name] = value
        else:
            glued[name] = f"<{type(value).__name__}>"

    shim = types.ModuleType("myst_nb")
    shim.glue = glue
    sys.modules["myst_nb"] = shim  # outside Jupyter myst_nb's own glue has nowhere to put its output
    os.chdir(page.parent)
    sys.path.insert(0, str(page.parent))
    namespace = {"__name__": "__main__"}
    cells = code_cells(page.read_text(encoding="utf-8"))
    start = time.perf_counter()
    for index, source in enumerate(cells):
        try:
            exec(compile(source, f"{page.name}[cell {index + 1}]", "exec"), namespace)
        except BaseException:  # noqa: BLE001 - the outcome of any failure is what is recorded
            return {"status": "error", "cells_run": index, "cells": len(cells),
                    "seconds": round(time.perf_counter() - start, 1), "glued": glued,
                    "failed_cell": index + 1, "first_line": source.strip().splitlines()[0] if source.strip() else "",
                    "error": "".join(traceback.format_exc().splitlines(keepends=True)[-12:])}
        finally:
            plt.close("all")
    return {"status": "ok", "cells_run": len(cells), "cells": len(cells),
            "seconds": round(time.perf_counter() - start, 1), "glued": glued}


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else str(page)


def run_in_child(page: Path, timeout: float, threads: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads), MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, __file__, "--child", str(page)], capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"page": _name(page), "status": "timeout", "seconds": round(timeout, 1)}
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{\"status\"")]
    if lines:
        result = json.loads(lines[-1])
    else:
        result = {"status": "error", "error": f"exit code {proc.returncode}: {proc.stderr[-1500:]}"}
    result["wall_seconds"] = round(time.perf_counter() - start, 1)
    return {"page": _name(page), **result}


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", nargs="+", type=Path, help="default: every chapters/*/*.md")
    parser.add_argument("--jobs", type=int, default=1, help="pages run at the same time")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per page")
    parser.add_argument("--out", type=Path, default=None, help="results file (default experiments/results/lessons_<device>.json)")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(run_page(args.child.resolve())), flush=True)
        return []

    import torch

    pages = [p.resolve() for p in args.pages] if args.pages else sorted(ROOT.glob("chapters/*/*.md"))
    threads = max(1, (os.cpu_count() or 1) // max(1, args.jobs))
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_in_child, page, args.timeout, threads): page for page in pages}
        rows = []
        for future in concurrent.futures.as_completed(futures):
            row = future.result()
            rows.append(row)
            print(f"{row['page']:45s} {row['status']:8s} {row.get('seconds', '?'):>7} s"
                  + (f"  cell {row.get('failed_cell')}: {row.get('error', '').strip().splitlines()[-1:]}"
                     if row["status"] == "error" else ""), flush=True)
    rows.sort(key=lambda r: r["page"])
    wall = time.perf_counter() - start
    device = "cuda" if torch.cuda.is_available() else "cpu"
    ok = sum(r["status"] == "ok" for r in rows)
    print(f"{ok} of {len(rows)} pages ran without error on {device} in {wall:.0f} s ({args.jobs} at a time)")
    if not args.no_write:
        from attnlab.results import write_results

        out = args.out or ROOT / "experiments" / "results" / f"lessons_{device}.json"
        write_results(out, "experiments/lessons_on_device.py", argv,
                      {"jobs": args.jobs, "threads_per_page": threads, "timeout": args.timeout, "device": device},
                      {"pages": rows, "ok": ok, "total": len(rows)}, wall)
        print(f"wrote {out}")
    return rows


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    main()
