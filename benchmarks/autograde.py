"""Cost of hardened autograding against bare nbgrader, and the speed-up of a second worker.

    python benchmarks/autograde.py                 # 40 submissions of chapter 2
    python benchmarks/autograde.py --n 10 --chapter 01-rnn-motivation

Builds ``--n`` synthetic submissions of one chapter (each answer cell either the model answer or
the stub, in a different mix per submission) in one scratch nbgrader course, then grades them all
three ways, in this order, in one run:

1. bare nbgrader in this process: ``NbGraderAPI.autograde`` per student, no wrapper;
2. :func:`attnlab.instructor.grading.grade` with 1 worker (each kernel in its sandbox: bubblewrap
   where it works, else Landlock; limits, tamper guard);
3. the same with 2 workers.

It prints which isolation ran, seconds per notebook, the ratio of (2) to (1) (target: at most 1.2)
and the speed-up of (3) over (2) (target: at least 1.7 on two free cores), both in one run. Timings
depend on the machine and on what else runs on it; the script prints the core count and the load
average before and after with them.

    python benchmarks/autograde.py --scheduler local:2 --n 12   # the Dask path against the local pool
    python benchmarks/autograde.py --scheduler tcp://HOST:8786  # ... on a running cluster

With ``--scheduler`` it grades the same submissions twice in one run instead: with the local process
pool (as many workers as the cluster has threads, 2 for ``local:2``), then as Dask tasks
(:func:`attnlab.instructor.distributed.grade_on_cluster`, the coordinator writing the gradebook), and
prints the seconds per notebook of each and their ratio (target: at most 1.1). Starting the cluster is
not counted (it is printed); each worker's set-up (its scratch course and gradebook) is, as the local
pool's is.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from attnlab import course
from attnlab.instructor.grading import Limits, grade
from attnlab.instructor.sandbox import isolation_report

MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def synthetic_submissions(chapter: str, root: Path, folder: Path, n: int) -> dict[str, Path]:
    """``n`` notebooks: submission ``i`` fills answer cell ``j`` with the model answer unless bit
    ``j`` of ``i`` is set, in which case the cell keeps its stub (and that part scores 0)."""
    source = json.loads((root / "solutions" / chapter / "exercises.ipynb").read_text(encoding="utf-8"))
    model = {}
    for cell in source["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution"):
            text = "".join(cell["source"])
            model[meta["grade_id"]] = "\n".join(l for l in text.splitlines() if l.strip() not in MARKERS)
    student = (root / "chapters" / chapter / "exercises.ipynb").read_text(encoding="utf-8")
    out = {}
    for i in range(n):
        nb = json.loads(student)
        for j, cell in enumerate(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("solution")):
            if not (i >> j) & 1:
                cell["source"] = model[cell["metadata"]["nbgrader"]["grade_id"]]
        path = folder / f"student{i:03d}.ipynb"
        path.write_text(json.dumps(nb), encoding="utf-8")
        out[f"student{i:03d}"] = path
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chapter", default="02-scaled-attention")
    parser.add_argument("--n", type=int, default=40, help="number of submissions (default 40)")
    parser.add_argument("--scheduler", metavar="local:N|ADDRESS", help="compare the Dask path with the local pool "
                        "instead: a local cluster of N workers, a scheduler address or a scheduler file")
    parser.add_argument("--out", type=Path, help="with --scheduler: also write the timings to this results file "
                        "(JSON with the command, hardware and date)")
    args = parser.parse_args()
    root = course.repo_root()
    if args.scheduler:
        return compare_dask(args, root)
    print("\n".join(isolation_report()))
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="attnlab-bench-") as tmp, course.scratch_course(args.chapter, root) as (api, cdir):
        subs = synthetic_submissions(args.chapter, root, Path(tmp), args.n)
        db_url = f"sqlite:///{cdir / 'gradebook.db'}"

        start = time.perf_counter()
        bare_scores = {}
        for student, path in subs.items():
            folder = cdir / "submitted" / student / args.chapter
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, folder / "exercises.ipynb")
            outcome = api.autograde(args.chapter, student, force=True, create=True)
            if not outcome["success"]:
                raise SystemExit(f"bare nbgrader failed on {student}:\n{outcome.get('log')}")
            with api.gradebook as gb:
                bare_scores[student] = gb.find_submission(args.chapter, student).score
        bare = time.perf_counter() - start

        timings = {}
        for workers in (1, 2):
            start = time.perf_counter()
            results = grade(root, args.chapter, subs, db_url, workers=workers, limits=Limits())
            timings[workers] = time.perf_counter() - start
            mismatched = [r.student for r in results if r.score != bare_scores[r.student]]
            if mismatched:
                raise SystemExit(f"hardened grading disagrees with bare nbgrader for {mismatched}")

    n = args.n
    print(f"chapter {args.chapter}, {n} submissions, {os.cpu_count()} cores, load average (1, 5, 15 min) "
          f"{' '.join(f'{x:.2f}' for x in load_before)} before, {' '.join(f'{x:.2f}' for x in os.getloadavg())} after")
    print(f"bare nbgrader, in-process:   {bare / n:6.2f} s per notebook")
    print(f"hardened, 1 worker:          {timings[1] / n:6.2f} s per notebook   "
          f"ratio to bare {timings[1] / bare:.2f} (target <= 1.2)")
    print(f"hardened, 2 workers:         {timings[2] / n:6.2f} s per notebook   "
          f"speed-up over 1 worker {timings[1] / timings[2]:.2f}x (target >= 1.7)")
    print("every score equal to bare nbgrader's")


def compare_dask(args, root: Path) -> None:
    from attnlab.instructor.distributed import cluster_report, connect, grade_on_cluster

    print("\n".join(isolation_report()))
    started = time.perf_counter()
    with connect(args.scheduler) as client:
        startup = time.perf_counter() - started
        print("\n".join(cluster_report(client)) + f" (started or reached in {startup:.1f} s, not counted)")
        workers = max(1, sum(client.nthreads().values()))
        load_before = os.getloadavg()
        with tempfile.TemporaryDirectory(prefix="attnlab-bench-") as tmp, \
                course.scratch_course(args.chapter, root) as (_api, cdir):
            subs = synthetic_submissions(args.chapter, root, Path(tmp), args.n)
            db_url = f"sqlite:///{cdir / 'gradebook.db'}"
            start = time.perf_counter()
            pool = grade(root, args.chapter, subs, db_url, workers=workers, limits=Limits())
            pool_s = time.perf_counter() - start
            stats: dict = {}
            start = time.perf_counter()
            dask = grade_on_cluster(root, args.chapter, subs, db_url, client, limits=Limits(), regrade=True, stats=stats)
            dask_s = time.perf_counter() - start
    scores = {r.student: r.score for r in pool}
    mismatched = [r.student for r in dask if r.score != scores[r.student] or r.status != "graded"]
    if mismatched:
        raise SystemExit(f"the Dask path disagrees with the local pool for {mismatched}")
    n = args.n
    print(f"chapter {args.chapter}, {n} submissions, {os.cpu_count()} cores, load average (1, 5, 15 min) "
          f"{' '.join(f'{x:.2f}' for x in load_before)} before, {' '.join(f'{x:.2f}' for x in os.getloadavg())} after")
    print(f"local pool, {workers} workers:      {pool_s / n:6.2f} s per notebook")
    print(f"Dask, {len(stats['workers'])} workers ({args.scheduler}): {dask_s / n:6.2f} s per notebook   "
          f"ratio to the local pool {dask_s / pool_s:.2f} (target <= 1.1)")
    print("isolation on the workers: " + ", ".join(f"{t} {c}" for t, c in stats["isolation"].items()))
    print(f"coordinator: {1000 * stats['coordinator_s'] / n:.0f} ms per notebook (gradebook, ledger, autograded copy); "
          "worker set-up (once per worker process, included above): "
          + ", ".join(f"{t:.1f} s" for t in stats["setup_s"].values()))
    print("every score equal to the local pool's")
    if args.out:
        from attnlab.results import write_results

        write_results(args.out, "benchmarks/autograde.py", None,
                      {"chapter": args.chapter, "n": n, "scheduler": args.scheduler, "workers": workers,
                       "cores": os.cpu_count(), "load_before": [round(x, 2) for x in load_before],
                       "load_after": [round(x, 2) for x in os.getloadavg()]},
                      {"pool_s_per_notebook": round(pool_s / n, 3), "dask_s_per_notebook": round(dask_s / n, 3),
                       "ratio": round(dask_s / pool_s, 3), "dask_workers": len(stats["workers"]),
                       "coordinator_ms_per_notebook": round(1000 * stats["coordinator_s"] / n, 1),
                       "worker_setup_s": [round(t, 1) for t in stats["setup_s"].values()],
                       "isolation": stats["isolation"]})
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
