"""The instructor subcommands of ``attnlab-course``: release, collect, autograde, feedback, export."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from . import workflow
from .grading import Limits, Result
from .sandbox import landlock_abi


def _err(message: str) -> None:
    print(f"attnlab-course: {message}", file=sys.stderr)


def plural(n: int, word: str) -> str:
    """``1 student``, ``2 students``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary(results: list[Result]) -> str:
    """The closing summary: one line per student (score, or why there is none), then the counts."""
    lines = [f"{'student':<24} {'status':<8} {'score':>8}  reason / notes"]
    lines += [r.line() for r in results]
    counts = Counter(r.status for r in results)
    lines.append(", ".join(f"{n} {status}" for status, n in sorted(counts.items())) + f" ({plural(len(results), 'student')})")
    return "\n".join(lines)


def run(args, root: Path, chapters: list[str]) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    db_url = getattr(args, "db", None) or workflow.default_db_url(root)
    try:
        if args.command == "release":
            path, in_zip = workflow.release(root, chapters, db_url, args.out)
            print(f"released {', '.join(chapters)} into the gradebook ({workflow.redact(db_url)}) and release/")
            print(f"wrote {path} ({plural(len(in_zip), 'student notebook')}: every chapter released so far, "
                  f"{', '.join(in_zip)}; no solutions or hidden tests)")
            return 0
        if args.command == "collect":
            report = workflow.collect(root, args.chapter, args.download, args.pattern or workflow.DEFAULT_PATTERN)
            for student, files in sorted(report.collected.items()):
                print(f"collected {student}: {', '.join(files)}")
            for name, why in report.unmatched:
                print(f"not collected: {name}: {why}")
            for note in report.notes:
                print(note)
            print(f"{plural(len(report.collected), 'student')} collected into submitted/, "
                  f"{plural(len(report.unmatched), 'file')} unmatched")
            return 0
        if args.command == "autograde":
            limits = Limits(cell_timeout=args.cell_timeout, notebook_timeout=args.notebook_timeout,
                            memory_mb=args.memory_mb, output_bytes=args.output_bytes)
            abi = landlock_abi()
            print("kernel confinement: " + (f"Linux Landlock ABI {abi} (writes, reads" + (", TCP" if abi >= 4 else "")
                  + (", signals" if abi >= 6 else "") + ")" if abi else
                  "NONE: this system has no Landlock, so grading kernels can read and write the instructor's files"))
            results = workflow.autograde(root, args.chapter, db_url, args.student, args.workers, limits,
                                         progress=lambda r: print(f"graded {r.student}: {r.status}", flush=True))
            print(summary(results))
            print(f"summary written to reports/autograde-{args.chapter}.csv")
            return 0
        if args.command == "feedback":
            written = workflow.feedback(root, args.chapter, db_url, args.student)
            for student, path in written.items():
                print(f"{student}: {Path(path).relative_to(root) if isinstance(path, Path) else path}")
            return 0 if all(isinstance(p, Path) for p in written.values()) else 1
        if args.command == "export":
            print(f"wrote {workflow.export(root, db_url, args.out)}")
            return 0
    except (RuntimeError, ValueError, FileNotFoundError) as err:
        _err(str(err))
        return 1
    except SQLAlchemyError as err:
        _err(f"cannot use the gradebook {workflow.redact(db_url)}: {str(err).splitlines()[0]}")
        return 1
    except ModuleNotFoundError as err:
        _err(f"the gradebook {workflow.redact(db_url)} needs the Python package {err.name!r}: "
             "install it (for PostgreSQL: pip install 'psycopg[binary]')")
        return 1
    raise AssertionError(args.command)
