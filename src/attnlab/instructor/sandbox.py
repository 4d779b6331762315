"""Start a grading kernel in isolation: ``python .../attnlab/instructor/sandbox.py POLICY -- KERNEL ARGS``.

The grader's kernelspec runs this file (as a script, so the course package is not imported) instead
of ``ipykernel_launcher``. It reads the JSON policy that the grader wrote, applies resource limits
(``setrlimit``: address space, size of any file written, CPU seconds, no core dumps, and the number
of processes when the grader does not run as root), and then starts the kernel in one of:

* **bubblewrap** (``bwrap``, the Debian package ``bubblewrap``), when :func:`probe_isolation` found
  that it can create namespaces here. The kernel gets its own mount, PID, network, IPC, UTS (and,
  where the system allows, user and cgroup) namespaces, no capabilities, a new session, a fresh
  ``/proc`` of its own PID namespace (the grader's ``/proc/<pid>/environ`` and ``cmdline`` do not
  exist there), a fresh, read-only ``/tmp``, an empty network namespace (no TCP, UDP or Unix socket reaches
  anything outside, abstract ones included), and only these folders: the system folders and the
  Python installation with its packages read-only, a few files of ``/etc``, and, writable, the
  kernel's own folder and the folder of its ZMQ ``ipc`` sockets. The course checkout (sources,
  solutions, gradebook, other submissions, the ``attnlab`` package) is not mounted. The namespace
  dies with the kernel: a process that the student's code left behind (``setsid``, double fork)
  is killed when the kernel ends, and ``--die-with-parent`` ends all of it when this launcher (the
  process the grader started and stops) ends. The launcher waits for bubblewrap and ends the way
  the kernel ended (killed by the same signal), so the grader's report says what happened.
* **Landlock** (Linux 5.13 or later), where bubblewrap is missing or cannot create namespaces:
  writes only below the kernel's folder, reads only of the system, Python and the kernel's own
  files; from ABI 4 no outgoing TCP; from ABI 6 no signals to outside processes and no abstract
  Unix sockets outside. It does not hide ``/proc`` or stop UDP or named Unix sockets. The
  launcher replaces itself with the kernel (``os.execve``).
* resource limits only, where neither is available (the instructor guide says what that leaves open).

In every case the kernel starts from an allow-listed environment built here (nothing of the
grader's: no tokens, agent sockets or database URLs), with ``python -I`` (no ``PYTHON*`` variables,
no user site, no script folder on ``sys.path``) and an import hook that answers ``import attnlab``
with a clear error. The grader talks to it over ZMQ's ``ipc`` transport (Unix socket files).
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import resource
import shutil
import subprocess
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
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
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
    # from ABI 4: no outgoing TCP connections; from ABI 6: no signals or abstract Unix sockets outside
    attr = _RulesetAttr(handled, _NET_CONNECT_TCP if abi >= 4 else 0, (_SCOPE_SIGNAL | _SCOPE_ABSTRACT_UNIX_SOCKET) if abi >= 6 else 0)
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
# what Landlock lets a kernel read (the fallback); bubblewrap mounts less, see bwrap_command
SYSTEM_READABLE = ("/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev", "/opt")
# bubblewrap: system folders (read-only; a symbolic link such as /bin -> usr/bin stays a link)
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# the few files of /etc that Python, torch and matplotlib read (not /etc as a whole: it may hold secrets)
ETC_ENTRIES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "timezone",
               "nsswitch.conf", "passwd", "group", "host.conf", "hosts", "fonts", "mime.types", "os-release")
# torch reads the CPU topology from here
SYS_ENTRIES = ("/sys/devices/system/cpu", "/sys/devices/system/node")
NAMESPACES = ("mnt", "pid", "net", "ipc", "uts", "user", "cgroup")
REQUIRED_NAMESPACES = ("mnt", "pid", "net", "ipc", "uts")
BWRAP_FLAGS = ("--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
               "--hostname", "attnlab-grading")
# with a user namespace of its own, the kernel also may not create further ones
BWRAP_STRICT = ("--unshare-user", "--disable-userns")
SHM_FOLDER = ".shm"  # the kernel's /dev/shm, inside its folder
NO_COURSE_PACKAGE = "the course package attnlab is not available while grading: the exercises use only torch"
# IPython's dynamic reading of one-line cells off in the grading kernel: no automagic (`time exec(...)` would run
# as %time), no autocall, and every prefilter checker off, so that a one-line cell is the Python the static scan
# reads (red team 16 F8)
KERNEL_OPTIONS = ("--InteractiveShell.automagic=False", "--InteractiveShell.autocall=0",
                  "--PrefilterChecker.enabled=False")

# The kernel's start inside the sandbox, run with ``python -I -c``: the import hook for the course
# package, the extra package folders, then ipykernel's own launcher.
BOOTSTRAP = r'''
import sys
sys.dont_write_bytecode = True
sys.path.extend(%r)
class _NoCoursePackage:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "attnlab" or name.startswith("attnlab."):
            raise ModuleNotFoundError(%r, name=name)
        return None
sys.meta_path.insert(0, _NoCoursePackage)
del _NoCoursePackage
class _PlainTensorCompare:
    # torch.testing.assert_close looks for DTensors on its first call, importing torch.distributed.tensor
    # and sympy: about a second in every kernel. A grading kernel never holds a DTensor, so the check is off.
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "torch.testing._comparison":
            return None
        import importlib.machinery
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module
        def exec_module(module):
            load(module)
            if getattr(module, "_HAS_DTENSOR", None) is True:
                module._HAS_DTENSOR = False
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, _PlainTensorCompare)
del _PlainTensorCompare
# modules come from the Python installation only (red team 15: a cell wrote a module into the kernel's folder,
# put the folder on sys.path and imported it, code that the static scan never reads). Placed just before the
# path finder, whose search it makes: a module found anywhere else is refused, with a reason
import importlib.machinery as _machinery
class _InstalledOnly:
    installed = tuple(root.rstrip("/") + "/" for root in %r)
    paths, real = _machinery.PathFinder, staticmethod(__import__("os").path.realpath)
    lstat, is_link, folders = staticmethod(__import__("os").lstat), staticmethod(__import__("stat").S_ISLNK), {}
    @classmethod
    def resolved(cls, p):
        # os.path.realpath's answer; a folder below an installed one is read-only to the kernel, so its real path is
        # kept, and a module there costs one lstat instead of one per folder of its path
        head, _, tail = p.rpartition("/")
        if (not head.startswith(cls.installed) or tail in ("", ".", "..") or "/./" in head + "/"
                or "/../" in head + "/" or "//" in head):
            return cls.real(p)
        base = cls.folders.get(head)
        if base is None:
            base = cls.folders[head] = cls.real(head)
        try:
            if cls.is_link(cls.lstat(base + "/" + tail).st_mode):
                return cls.real(p)
        except OSError:
            pass
        return base + "/" + tail
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        spec = cls.paths.find_spec(name, path, target)
        if spec is None:
            return None
        places = [spec.origin] if spec.has_location and spec.origin else list(spec.submodule_search_locations or ())
        if any(not (cls.resolved(p) + "/").startswith(cls.installed) for p in places):
            raise ModuleNotFoundError(f"module {name!r} is not part of the Python installation: while grading, "
                                      "modules come only from there (the exercises use only torch)", name=name)
        return spec
    @classmethod
    def invalidate_caches(cls):
        cls.paths.invalidate_caches()
sys.meta_path.insert(sys.meta_path.index(_machinery.PathFinder), _InstalledOnly)
del _InstalledOnly, _machinery
# a one-line cell runs as the static scan reads it (red team 16 F8): with automagic on (IPython's default),
# IPython's prefilter ran `time exec("...")` or `pip install x` as a magic, text that is no Python to the scan.
# Every prefilter checker is off (automagic, autocall, macros, `exit` without brackets), given as options on the
# command line, which outrank any configuration file; the grader turns them off again before every cell
sys.argv = ["ipykernel_launcher", *sys.argv[1:], *%r]
# the kernel keeps no copy of a cell's source while it runs (red team 16 F12: an answer that a test cell called
# read the test's whole text, hidden tests included, in get_ipython().kernel.get_parent("shell")["content"]).
# Once the request's handler has read the code, the request the kernel keeps (the same dictionary is the shell's
# parent_header and sits in the kernel's context variables) holds none of it, nor the grader's expressions; what
# routes the cell's output (the header, the identities) stays. IPython's record of the running cell (the
# displayhook's exec_result, last_execution_result) keeps no source either
import functools as _functools
import ipykernel.ipkernel as _ipkernel
import IPython.core.interactiveshell as _interactiveshell
def _without_request_code(do_execute):
    @_functools.wraps(do_execute)
    def wrapper(self, *args, **kwargs):
        try:
            content = self.get_parent("shell").get("content")
        except Exception:
            content = None
        if isinstance(content, dict):
            if "code" in content:
                content["code"] = ""
            if "user_expressions" in content:
                content["user_expressions"] = {}
        return do_execute(self, *args, **kwargs)
    return wrapper
_ipkernel.IPythonKernel.do_execute = _without_request_code(_ipkernel.IPythonKernel.do_execute)
def _without_source(init):
    @_functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.raw_cell, self.transformed_cell = "", None
    return wrapper
_interactiveshell.ExecutionInfo.__init__ = _without_source(_interactiveshell.ExecutionInfo.__init__)
del _functools, _ipkernel, _interactiveshell, _without_request_code, _without_source
import runpy
runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)
'''


def _under(path: str, root: str) -> bool:
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root.rstrip("/") + "/")


def readable_without(readable: list[str], hidden: list[str]) -> list[str]:
    """``readable`` with every folder of ``hidden`` carved out, for Landlock, whose rules can only add.

    A readable folder that holds a hidden one (a ``PYTHONPATH`` entry or ``/opt`` above the course, say)
    is replaced by its entries, recursively, along the way down to the hidden folder, which is left
    out; the rules are on real paths, so a symbolic link is followed once and never loops. A path of
    ``readable`` that lies inside a hidden folder stays (a virtual environment inside the checkout:
    :func:`python_folders` chose it)."""
    hidden_real = [os.path.realpath(h) for h in hidden if h]
    out: list[str] = []
    seen: set[str] = set()

    def carve(path: str, listed: bool) -> None:
        real = os.path.realpath(path)
        if real in hidden_real or (not listed and any(_under(real, h) for h in hidden_real)):
            return  # not marked seen: a listed path reached first through a link stays listed
        if real in seen or not os.path.exists(real):
            return
        seen.add(real)
        if not any(_under(h, real) and h != real for h in hidden_real):
            out.append(real)
            return
        try:
            names = sorted(os.listdir(real))
        except OSError:
            return  # unreadable here: the kernel could not read it either
        for name in names:
            carve(os.path.join(real, name), False)

    for path in readable:
        carve(path, True)
    return _outermost(out)


def _outermost(paths) -> list[str]:
    """``paths`` without those that lie inside another one of them."""
    out: list[str] = []
    for p in sorted(set(paths), key=len):
        if not any(p == q or p.startswith(q.rstrip("/") + "/") for q in out):
            out.append(p)
    return out


def extra_sys_path(hidden: list[str]) -> list[str]:
    """Package folders the grader finds through ``PYTHONPATH`` or the user site, which ``python -I``
    would drop: the kernel adds them back. Folders of the course (``hidden``) are left out."""
    import site

    found = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user_site and user_site in sys.path:
        found.append(user_site)
    return [p for p in dict.fromkeys(found)
            if os.path.isabs(p) and os.path.isdir(p) and not any(_under(p, h) for h in hidden)]


def installed_folders(hidden: list[str], writable: list[str | None]) -> list[str]:
    """Where the kernel may import modules from: the Python installation, its packages and the system's
    folders, real paths, none of them holding a folder the kernel can write to (``writable``)."""
    found = {os.path.realpath(p) for p in (*python_folders(hidden), *SYSTEM_DIRS) if os.path.isdir(p)}
    writable = [os.path.realpath(w) for w in writable if w]
    return sorted(p for p in found if not any(_under(w, p) for w in writable))


def python_folders(hidden: list[str]) -> list[str]:
    """The Python installation and its packages, as the grader's interpreter sees them (and the real
    folders behind symbolic links such as a virtual environment's ``bin/python``)."""
    prefixes = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    found = [*prefixes, *(p for p in sys.path if p and os.path.isabs(p)), *extra_sys_path(hidden),
             os.path.dirname(os.path.realpath(sys.executable))]
    found += [os.path.realpath(p) for p in found]
    keep = []
    for p in found:
        if not os.path.exists(p):
            continue
        # a folder of the course (its src/ on sys.path for an editable install) stays out, unless it
        # is part of a virtual environment that happens to live inside the checkout
        if any(_under(p, h) for h in hidden) and not any(_under(p, pre) and not any(_under(h, pre) for h in hidden)
                                                        for pre in prefixes):
            continue
        keep.append(os.path.normpath(p))
    return _outermost(keep)


def bwrap_command(isolation: dict, work: str, runtime: str | None, env: dict[str, str], hidden: list[str],
                  command: list[str]) -> list[str]:
    """The ``bwrap`` argument list that runs ``command`` in ``work`` inside the sandbox."""
    args = [isolation.get("path") or "bwrap", *BWRAP_FLAGS, *(BWRAP_STRICT if isolation.get("strict", True) else ())]
    args.append("--clearenv")
    for key, value in env.items():
        args += ["--setenv", key, value]
    bound = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
            bound.append(path)
    for name in ETC_ENTRIES:
        path = os.path.join("/etc", name)
        if os.path.islink(path) and not os.path.exists(path):
            continue
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    for path in SYS_ENTRIES:
        args += ["--ro-bind-try", path, path]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    python = python_folders(hidden)
    for path in python:
        if not any(_under(path, b) for b in bound):
            args += ["--ro-bind", path, path]
            bound.append(path)
    # a folder of the course below a bound folder (a checkout inside /usr, say) is hidden by an empty one,
    # and the Python folders inside it (its virtual environment) are bound again on top
    for path in hidden:
        if os.path.isdir(path) and any(_under(path, b) and not _under(b, path) for b in bound):
            args += ["--tmpfs", path]
            args += [a for p in python if _under(p, path) for a in ("--ro-bind", p, p)]
    for path in (runtime, work):
        if path:
            args += ["--bind", path, path]
    # /dev/shm is a folder inside the kernel's own, on the grader's disk: a tmpfs there would hold in the
    # host's memory whatever a cell writes, past the address-space cap and unseen by the disk limit, which
    # counts this folder with the rest of the kernel's files
    shm = os.path.join(work, SHM_FOLDER)
    os.makedirs(shm, mode=0o700, exist_ok=True)
    args += ["--bind", shm, "/dev/shm"]
    # read-only too: the root folder, and the private /tmp with the folders bubblewrap made in it for
    # the binds (TMPDIR is the kernel's own folder); /dev/shm stays writable for shared memory (see above)
    args += ["--remount-ro", "/", "--remount-ro", "/tmp", "--chdir", work, "--", *command]
    return args


def _lang() -> str:
    lang = os.environ.get("LANG", "")
    return lang if re.fullmatch(r"[A-Za-z0-9_.@-]+", lang) else "C.UTF-8"


def kernel_env(policy: dict, home: Path) -> dict[str, str]:
    """The grading kernel's whole environment, built from an allow-list: nothing else of the grader's."""
    home = Path(home)
    env = {
        "HOME": str(home), "TMPDIR": str(home), "IPYTHONDIR": str(home / ".ipython"),
        "MPLCONFIGDIR": str(home / ".matplotlib"), "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"), "PYTHONDONTWRITEBYTECODE": "1",
        "PATH": os.pathsep.join(dict.fromkeys([os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"])),
        "LANG": _lang(), "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        # torch.compile's C++ backend precompiles torch's headers into one file larger than the kernel's file
        # limit, and the compiler dies of it (red team 15): without the header it compiles
        "TORCHINDUCTOR_CPP_CACHE_PRECOMPILE_HEADERS": "0",
    }
    # thread counts and the Triton interpreter switch: numbers only, taken over from the grader
    for name in (*THREAD_ENV, "TRITON_INTERPRET"):
        if os.environ.get(name, "").isdigit():
            env[name] = os.environ[name]
    if policy.get("threads"):  # the kernel's share of the cores (torch, numpy and their BLAS read these)
        env.update({name: str(policy["threads"]) for name in THREAD_ENV})
    for name in policy.get("unset_env", []):
        env.pop(name, None)
    return env


def _own_processes() -> int:
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if os.stat(entry.path).st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count


def apply_limits(policy: dict) -> None:
    def cap(which, value, extra=0):
        if value:
            hard = resource.getrlimit(which)[1]
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            top = value + extra if hard == resource.RLIM_INFINITY else min(value + extra, hard)
            resource.setrlimit(which, (value, top))

    cap(resource.RLIMIT_AS, policy.get("memory_bytes"))
    cap(resource.RLIMIT_FSIZE, policy.get("file_bytes"))
    # at the soft limit the kernel gets SIGXCPU (it ends the process: signal 24); at the hard one, 5 s
    # later, SIGKILL, should the student's code have caught SIGXCPU
    cap(resource.RLIMIT_CPU, policy.get("cpu_seconds"), extra=5)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # the count is per user, and root is exempt: a limit only where it means something
    if policy.get("processes") and os.getuid() != 0:
        cap(resource.RLIMIT_NPROC, _own_processes() + policy["processes"])


# --------------------------------------------------------------------------- which isolation runs

_PROBE = "import json, os; print(json.dumps({n: os.readlink('/proc/self/ns/' + n) for n in %r if os.path.exists('/proc/self/ns/' + n)}))"


def _bwrap_version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10).stdout.split()
        return out[-1] if out else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def _try_bwrap(path: str, strict: bool) -> tuple[list[str] | None, str]:
    """Run a trivial Python in the sandbox; the namespaces it got of its own, or why it failed."""
    from . import tempdirs  # here, not at the top: this file also runs as the kernel's launcher script

    mine = {n: os.readlink(f"/proc/self/ns/{n}") for n in NAMESPACES if os.path.exists(f"/proc/self/ns/{n}")}
    with tempdirs.folder("attnlab-probe-") as work:
        env = kernel_env({}, Path(work))
        cmd = bwrap_command({"path": path, "strict": strict}, work, None, env, [],
                            [sys.executable, "-I", "-c", _PROBE % (NAMESPACES,)])
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env={})
        except (OSError, subprocess.SubprocessError) as err:
            return None, str(err)
    if proc.returncode != 0:
        return None, (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
    try:
        theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None, f"unexpected probe output {proc.stdout[-200:]!r}"
    own = [n for n in NAMESPACES if n in theirs and theirs[n] != mine.get(n)]
    missing = [n for n in REQUIRED_NAMESPACES if n not in own]
    if missing:
        return None, f"no namespace of its own for {', '.join(missing)}"
    return own, ""


def probe_isolation(prefer: str = "auto", landlock: bool = True) -> dict:
    """Which isolation grading kernels get here: ``{"tool": "bwrap" | "landlock" | "rlimits", ...}``.

    ``prefer="auto"`` takes bubblewrap when it works, else Landlock, else limits only, and says in
    ``fallback`` why; ``"bwrap"`` raises :class:`RuntimeError` when bubblewrap cannot be used;
    ``"landlock"`` skips bubblewrap. Each call runs a trivial sandboxed Python (well under a second)."""
    if prefer not in ("auto", "bwrap", "landlock"):
        raise ValueError(f"isolation must be auto, bwrap or landlock, got {prefer!r}")
    reason = ""
    if prefer in ("auto", "bwrap"):
        path = shutil.which("bwrap") if sys.platform.startswith("linux") else None
        if not path:
            reason = "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
        else:
            detail = ""
            for strict in (True, False):
                namespaces, detail = _try_bwrap(path, strict)
                if namespaces:
                    return {"tool": "bwrap", "path": path, "version": _bwrap_version(path), "strict": strict,
                            "namespaces": namespaces}
            reason = f"bubblewrap cannot create namespaces here ({detail})"
        if prefer == "bwrap":
            raise RuntimeError(f"grading kernels cannot be isolated with bubblewrap: {reason}")
    abi = landlock_abi() if landlock else 0
    if abi:
        return {"tool": "landlock", "abi": abi, "fallback": reason}
    return {"tool": "rlimits", "fallback": reason or "Landlock is switched off"}


_NS_NAMES = {"mnt": "mount", "pid": "PID", "net": "network", "ipc": "IPC", "uts": "UTS", "user": "user",
             "cgroup": "cgroup"}


def isolation_report(limits=None, isolation: dict | None = None) -> list[str]:
    """Lines that say which isolation grading kernels get here and which limits apply to them.

    ``limits`` is a :class:`~attnlab.instructor.grading.Limits` (default: its defaults); ``isolation``
    a result of :func:`probe_isolation` (default: probe now)."""
    from .grading import Limits, kernel_policy  # the grader builds the policy; this reads it back

    limits = limits or Limits()
    iso = isolation or probe_isolation(getattr(limits, "isolation", "auto"), getattr(limits, "landlock", True))
    lines = []
    if iso["tool"] == "bwrap":
        names = ", ".join(_NS_NAMES[n] for n in iso["namespaces"])
        lines.append(f"kernel isolation: bubblewrap {iso['version']} ({iso['path']}): namespaces {names}; no capabilities; "
                     "own /proc and /tmp; no network at all; system and Python folders read-only, the course not "
                     "mounted; only the kernel's folder writable; allow-listed environment")
    else:
        if iso.get("fallback"):
            lines.append(f"warning: {iso['fallback']}; falling back to "
                         + ("Landlock" if iso["tool"] == "landlock" else "resource limits only"))
        if iso["tool"] == "landlock":
            abi = iso["abi"]
            covered = ["writes", "reads"] + (["TCP"] if abi >= 4 else []) + (["signals", "abstract Unix sockets"] if abi >= 6 else [])
            lines.append(f"kernel isolation: Linux Landlock ABI {abi} ({', '.join(covered)}); allow-listed environment; "
                         "NOT confined: /proc of other processes, UDP, named Unix sockets, processes left behind")
        else:
            lines.append("kernel isolation: resource limits only, NONE of files, network, /proc or signals: "
                         "grading kernels can read and write the instructor's files")
    policy = kernel_policy(limits, threads=1, isolation=iso)
    mib = 2 ** 20
    procs = ("processes: not limited (the grader runs as root; the kernel's namespace ends them all)"
             if iso["tool"] == "bwrap" and os.getuid() == 0 else
             "processes: not limited (the grader runs as root)" if os.getuid() == 0 else
             f"processes: {policy['processes']} more per kernel")
    lines.append(f"kernel limits: address space {policy['memory_bytes'] // mib} MiB, files {policy['file_bytes'] // mib} MiB, "
                 f"CPU {policy['cpu_seconds']} s per kernel process, no core dumps, {procs}")
    return lines


# --------------------------------------------------------------------------- the launcher

def _run_and_relay(command: list[str], parent: int | None = None) -> None:
    """Run bubblewrap and end as its sandboxed kernel ended, so that the grader can tell a kernel
    killed by a signal (bwrap reports 128 + the signal) from one that exited. This process stays the
    kernel's parent: stopping it stops bubblewrap (``--die-with-parent``) and the whole sandbox.

    ``parent`` is the grading process's pid (from the policy): when this process's parent is another
    one, the grader is gone (a killed Dask worker took it) and the sandbox ends, also when it died
    while this launcher was still starting, before it could have read the pid itself."""
    import signal

    parent = os.getppid() if parent is None else parent
    if os.getppid() != parent:
        os._exit(1)
    proc = subprocess.Popen(command, env={}, close_fds=True)
    while True:
        try:
            status = proc.wait(timeout=1)
            break
        except KeyboardInterrupt:  # interrupts go to the kernel as messages; never stop here
            continue
        except subprocess.TimeoutExpired:
            # the grading process died (a killed Dask worker, say): end the sandbox with it
            if os.getppid() != parent:
                proc.kill()
    if 128 < status < 128 + signal.NSIG:
        sig = status - 128
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # these two always act by default
            signal.signal(sig, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.kill(os.getpid(), sig)
    os._exit(status)


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] != "--":
        raise SystemExit("usage: python sandbox.py POLICY.json -- KERNEL-ARGS")
    policy = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    work = Path.cwd()
    home = work / ".home"
    home.mkdir(exist_ok=True)
    env = kernel_env(policy, home)
    hidden = [p for p in policy.get("hidden", []) if p]
    connection = argv[argv.index("-f") + 1] if "-f" in argv[2:] else None
    runtime = policy.get("runtime_dir") or (os.path.dirname(os.path.abspath(connection)) if connection else None)
    kernel = [sys.executable, "-I", "-c", BOOTSTRAP % (extra_sys_path(hidden), NO_COURSE_PACKAGE,
                                                       installed_folders(hidden, [str(work), runtime]),
                                                       KERNEL_OPTIONS), *argv[2:]]
    isolation = policy.get("isolation") or {"tool": "landlock" if policy.get("landlock", True) else "rlimits"}
    # the kernel's own output outside the notebook (warnings, crashes, bubblewrap's errors, writes to
    # file descriptors 1 and 2) goes to a file of its folder, not to the grader's terminal
    log = os.open(home / "kernel.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    for fd, target in ((0, null), (1, log), (2, log)):
        os.dup2(target, fd)
    os.close(log)
    os.close(null)
    if isolation["tool"] == "bwrap":
        (home / "sandbox.json").write_text(json.dumps({"isolation": "bwrap", "namespaces": isolation.get("namespaces")}),
                                           encoding="utf-8")
        apply_limits(policy)
        _run_and_relay(bwrap_command(isolation, str(work), runtime, env, hidden, kernel), policy.get("grader_pid"))
    abi = 0
    if isolation["tool"] == "landlock":
        # the system, the Python installation and its packages, this kernel's connection file; not the
        # course: its sources, gradebook and other students' files stay unreadable
        # (a readable folder that holds the course is replaced by its other entries: Landlock cannot take
        # back a folder below one it allows)
        readable = readable_without(sorted({*SYSTEM_READABLE, *python_folders(hidden), *([connection] if connection else [])}),
                                    hidden)
        writable = [str(work)] + ([runtime] if runtime else [])
        abi = confine_writes(writable, ["/dev/null", "/dev/zero", "/dev/tty"], readable)
    (home / "sandbox.json").write_text(json.dumps({"isolation": isolation["tool"], "landlock_abi": abi}), encoding="utf-8")
    apply_limits(policy)
    os.execve(sys.executable, kernel, env)


if __name__ == "__main__":
    main(sys.argv[1:])
