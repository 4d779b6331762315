"""Temporary folders that name the process that made them, so that the next run removes what a killed run left.

A grading run keeps its scratch course (a copy of the chapter's source, hidden tests included), the
kernels' socket folders and the sandbox probe's folder in the temporary directory. Python removes them
when the run ends, but not when the process is killed (SIGKILL, an out-of-memory kill, a machine that
loses power). Their names therefore carry the PID namespace and the process id of their maker:
``attnlab-grade-<ns>.<pid>-<random>``. :func:`sweep` removes the folders whose maker no longer runs
in this PID namespace; it never touches another user's folders, a live process's folders, or folders
made in another PID namespace (a container sharing ``/tmp``), where this process cannot tell.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

__all__ = ["folder", "make", "sweep"]


def _namespace() -> str:
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:  # no /proc (not Linux): the boot is the best that can be told apart
        return "0"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def make(prefix: str, dir: str | os.PathLike | None = None) -> str:
    """``tempfile.mkdtemp`` whose name records this process: ``<prefix><ns>.<pid>-<random>``."""
    return tempfile.mkdtemp(prefix=f"{prefix}{_namespace()}.{os.getpid()}-", dir=dir)


def sweep(prefix: str, dir: str | os.PathLike | None = None) -> list[Path]:
    """Remove the folders :func:`make` made with ``prefix`` in ``dir`` whose process has ended; return them."""
    folder = Path(dir if dir is not None else tempfile.gettempdir())
    pattern = re.compile(re.escape(prefix) + r"(\d+)\.(\d+)-[^/]+")
    namespace, uid, removed = _namespace(), os.getuid(), []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return removed
    for entry in entries:
        found = pattern.fullmatch(entry.name)
        if not found or found.group(1) != namespace:
            continue
        try:
            info = entry.lstat()
        except OSError:
            continue
        if info.st_uid != uid or not entry.is_dir() or entry.is_symlink() or _alive(int(found.group(2))):
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


@contextmanager
def folder(prefix: str, dir: str | os.PathLike | None = None):
    """Sweep what killed runs left with ``prefix``, then yield a new folder's path; removed on exit."""
    sweep(prefix, dir)
    path = make(prefix, dir)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
