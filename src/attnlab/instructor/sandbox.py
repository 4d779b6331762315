"""Start a grading kernel inside limits: ``python .../attnlab/instructor/sandbox.py POLICY -- KERNEL ARGS``.

The grader's kernelspec runs this module instead of ``ipykernel_launcher``. Before it replaces
itself with the real kernel (``os.execv``, so the kernel keeps this process id and jupyter_client
can interrupt and stop it as usual) it applies, from the JSON policy file:

* resource limits (``setrlimit``): address space (``memory_bytes``), size of any file written
  (``file_bytes``), CPU seconds (``cpu_seconds``) and no core dumps;
* a Linux Landlock ruleset, when the kernel offers one (Linux 5.13 or later): the kernel and every
  process it starts may write only below its working directory (the scratch copy of one student's
  submission) and to ``/dev/null``-like devices, and may read only the system folders, the Python
  installation with its packages, and its own connection file (so not the course's sources, hidden
  tests, gradebook, or other students' files); from Landlock ABI 6 (Linux 6.12) it also may not
  send signals to processes outside the sandbox, so it cannot kill the grader or another kernel.
  From ABI 4 (Linux 6.7) it may not open outgoing TCP connections (so not reach a PostgreSQL
  gradebook or another kernel's ports). Landlock works for every user, root included, and cannot
  be lifted by the sandboxed process.

What it does not do: hide the system's own files (``/etc``, ``/proc``), restrict UDP or Unix-socket traffic, or the number of processes
when the grader runs as root. The instructor guide's threat model says what that leaves open.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import sys
from pathlib import Path

# Landlock constants from <linux/landlock.h>
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_FS = {
    "execute": 1 << 0, "write_file": 1 << 1, "read_file": 1 << 2, "read_dir": 1 << 3,
    "remove_dir": 1 << 4, "remove_file": 1 << 5, "make_char": 1 << 6, "make_dir": 1 << 7,
    "make_reg": 1 << 8, "make_sock": 1 << 9, "make_fifo": 1 << 10, "make_block": 1 << 11,
    "make_sym": 1 << 12, "refer": 1 << 13, "truncate": 1 << 14, "ioctl_dev": 1 << 15,
}
_WRITE_RIGHTS_BY_ABI = {
    1: ["write_file", "remove_dir", "remove_file", "make_char", "make_dir", "make_reg", "make_sock",
        "make_fifo", "make_block", "make_sym"],
    2: ["refer"],
    3: ["truncate"],
}
_SCOPE_SIGNAL = 1 << 1
_NET_CONNECT_TCP = 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The Landlock ABI version the running kernel offers; 0 when it has none (or not Linux)."""
    if not sys.platform.startswith("linux"):
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    abi = libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(int(abi), 0)


def _write_rights(abi: int) -> int:
    mask = 0
    for version, names in _WRITE_RIGHTS_BY_ABI.items():
        if abi >= version:
            for name in names:
                mask |= _FS[name]
    return mask


def confine_writes(writable: list[str], devices: list[str], readable: list[str] | None = None) -> int:
    """Allow writes only below ``writable`` (and plain writes to ``devices``); with ``readable``, also
    allow reads only below those paths (and ``writable``). Returns the Landlock ABI used (0: none)."""
    abi = landlock_abi()
    if abi < 1:
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    read = _FS["read_file"] | _FS["read_dir"]
    handled = _write_rights(abi) | (read if readable is not None else 0)
    # from ABI 4: no outgoing TCP connections (the kernel only binds its own ports)
    attr = _RulesetAttr(handled, _NET_CONNECT_TCP if abi >= 4 else 0, _SCOPE_SIGNAL if abi >= 6 else 0)
    # older kernels accept the larger struct as long as the fields they do not know are zero
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        file_rights = _FS["write_file"] | _FS["truncate"] | _FS["read_file"]
        rules = [(p, handled) for p in writable] + [(p, handled & file_rights) for p in devices]
        rules += [(p, handled & read) for p in readable or []]
        for path, rights in rules:
            if not os.path.exists(path):
                continue
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                # a rule on a file (not a directory) may carry only file rights
                if not os.path.isdir(path):
                    rights &= file_rights
                rule = _PathBeneathAttr(rights, fd)
                if libc.syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                                ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if libc.syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    return abi


# variables that set how many threads torch, numpy and their BLAS libraries start
THREAD_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
SYSTEM_READABLE = ("/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev", "/opt")


def apply_limits(policy: dict) -> None:
    def cap(which, value):
        if value:
            hard = resource.getrlimit(which)[1]
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (value, value))

    cap(resource.RLIMIT_AS, policy.get("memory_bytes"))
    cap(resource.RLIMIT_FSIZE, policy.get("file_bytes"))
    cap(resource.RLIMIT_CPU, policy.get("cpu_seconds"))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def kernel_env(policy: dict, home: Path) -> dict[str, str]:
    """The grading kernel's environment: this one, minus secrets, with its caches in ``home``."""
    env = dict(os.environ)
    # the kernel's caches and temporary files stay in the writable scratch folder
    env.update(HOME=str(home), TMPDIR=str(home), IPYTHONDIR=str(home / ".ipython"),
               MPLCONFIGDIR=str(home / ".matplotlib"), XDG_CACHE_HOME=str(home / ".cache"),
               PYTHONDONTWRITEBYTECODE="1")
    for name in policy.get("unset_env", []):
        env.pop(name, None)
    if policy.get("threads"):  # the kernel's share of the cores (torch, numpy and their BLAS read these)
        env.update({name: str(policy["threads"]) for name in THREAD_ENV})
    return env


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] != "--":
        raise SystemExit("usage: python sandbox.py POLICY.json -- KERNEL-ARGS")
    policy = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    work = Path.cwd()
    home = work / ".home"
    home.mkdir(exist_ok=True)
    env = kernel_env(policy, home)
    apply_limits(policy)
    readable = None
    if policy.get("confine_reads", True):
        # the system, the Python installation and its packages, this kernel's connection file;
        # not the course: its sources, gradebook and other students' files stay unreadable
        connection = argv[argv.index("-f") + 1] if "-f" in argv[2:] else None
        readable = sorted({*SYSTEM_READABLE, sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                           *(p for p in sys.path if p and os.path.isabs(p)), str(Path(__file__).resolve().parents[1]),
                           *([connection] if connection else [])})
    abi = confine_writes([str(work)], ["/dev/null", "/dev/zero", "/dev/tty"], readable) if policy.get("landlock", True) else 0
    (home / "sandbox.json").write_text(json.dumps({"landlock_abi": abi}), encoding="utf-8")
    # the kernel's own log (warnings, crashes) goes to a file of the scratch folder, not the grader's terminal
    log = os.open(home / "kernel.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 2)
    os.close(log)
    os.execve(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *argv[2:]], env)


if __name__ == "__main__":
    main(sys.argv[1:])
