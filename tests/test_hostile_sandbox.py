"""Ways out of a grading kernel (issue #17, points 4 and 6): each attack is a chapter-2 submission.

Every attack runs at the start of the chapter's FIRST answer cell, before the model answer, and
prints ``RESULT <name> ...`` lines; the test then checks what it printed, what arrived outside (a
Unix socket, an abstract one, UDP and TCP listeners, a signal handler, planted files), and its
score, computed from the parts: the model answer's score, or (where the attack makes the first cell
fail) the score of the model answer with the first cell left as its stub.

The batch is graded once per module, by a grader process started with a secret token and an
``SSH_AUTH_SOCK`` in its environment and a database URL with a password on its command line. A
second, smaller batch is graded while two busy-loop processes keep the cores busy, and must end
exactly as it did on an idle machine. bubblewrap is required where ``ATTNLAB_REQUIRE_BWRAP`` is set
(CI); elsewhere the module is skipped with the reason when bubblewrap cannot run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from attnlab.instructor import sandbox
from attnlab.instructor.grading import Limits, check_notebook, extra_notebooks
from grading import ROOT, core_share, load, solution_code, write_submission
from instructor_course import CHAPTER, cli, copy_course

RUN = uuid.uuid4().hex[:10]
TOKEN = f"grader-token-{RUN}"
PASSWORD = f"pw-{RUN}"
SLEEPER = f"attnlab-sleeper-{RUN}"
ABSTRACT = f"\0attnlab-test-{RUN}"
# runaway code ends at 15 s of CPU time (the model notebook's kernel used 3.5 s on an idle machine: user
# + system of the kernel process, read by getrusage in its last cell); the wall-clock limits are far
# away even on a busy machine. The loop case spends the whole limit twice (idle and loaded), cpuburn once.
# The compile case's kernel also imports torch's compiler and compiles, which on a slow CI machine (torch's
# import alone 2.5 s of CPU, 1.6 s on a quick one) passed 10 s: the kernel was killed mid-notebook and its
# silence flagged
LIMITS = dict(cell_timeout=240, notebook_timeout=600, cpu_seconds=15, memory_mb=2048, output_bytes=100_000)


def _isolation() -> dict:
    try:
        return sandbox.probe_isolation("bwrap")
    except RuntimeError as err:
        if os.environ.get("ATTNLAB_REQUIRE_BWRAP"):
            pytest.fail(f"ATTNLAB_REQUIRE_BWRAP is set but {err}")
        pytest.skip(str(err))


# --------------------------------------------------------------------------- listeners outside the sandbox

class Listeners:
    """A Unix socket (also the grader's SSH_AUTH_SOCK), an abstract Unix socket, UDP and TCP on
    loopback, each recording whatever reaches it."""

    def __init__(self, folder: Path):
        self.arrived: list[str] = []
        self.unix_path = str(folder / "agent.sock")
        self._stop = False
        self._socks = []
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.bind(self.unix_path)
        abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        abstract.bind(ABSTRACT)
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        tcp.bind(("127.0.0.1", 0))
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", 0))
        self.tcp_port, self.udp_port = tcp.getsockname()[1], udp.getsockname()[1]
        for name, sock in (("unix", unix), ("abstract", abstract), ("tcp", tcp)):
            sock.listen(8)
            self._start(self._accept, name, sock)
        self._start(self._receive, "udp", udp)

    def _start(self, target, name, sock):
        sock.settimeout(0.2)
        self._socks.append(sock)
        threading.Thread(target=target, args=(name, sock), daemon=True).start()

    def _accept(self, name, sock):
        while not self._stop:
            try:
                conn, _ = sock.accept()
            except (socket.timeout, OSError):
                continue
            self.arrived.append(name)
            conn.close()

    def _receive(self, name, sock):
        while not self._stop:
            try:
                data, _ = sock.recvfrom(4096)
            except (socket.timeout, OSError):
                continue
            self.arrived.append(f"{name}: {data[:40]!r}")

    def close(self):
        self._stop = True
        time.sleep(0.3)
        for sock in self._socks:
            sock.close()


# --------------------------------------------------------------------------- the attacks

def _attacks(course: Path, listen: Listeners, victims: dict[str, Path]) -> dict[str, str]:
    """``{case: code run at the start of the first answer cell}``. ``__GRADER_PID__`` is replaced
    by the grader process with its own id before grading."""
    solutions = course / "solutions" / CHAPTER / "exercises.ipynb"
    forbidden = sorted({"solutions", "source", "submitted", "gradebook.db", "policy.json", "jupyter",
                        "nbgrader_config.py", "chapters"})
    return {
        "env": (
            "import os\n"
            f"print('RESULT env', sorted(k for k in ('GRADER_TOKEN', 'SSH_AUTH_SOCK') if k in os.environ),"
            f" any({TOKEN[:8]!r} + {TOKEN[8:]!r} in v for v in os.environ.values()))\n"),
        "proc": (
            "import os\n"
            "_found, _pids = [], [p for p in os.listdir('/proc') if p.isdigit()]\n"
            "for _pid in _pids:\n"
            "    for _f in ('environ', 'cmdline'):\n"
            "        try:\n            _data = open(f'/proc/{_pid}/{_f}', 'rb').read()\n"
            "        except OSError:\n            continue\n"
            f"        if {TOKEN[:8].encode()!r} + {TOKEN[8:].encode()!r} in _data or {PASSWORD[:3].encode()!r} + {PASSWORD[3:].encode()!r} in _data:\n"
            "            _found.append((_pid, _f))\n"
            "print('RESULT proc', _found, len(_pids) < 10)\n"
            "for _f in ('environ', 'cmdline'):\n"
            "    try:\n        open(f'/proc/__GRADER_PID__/{_f}', 'rb').read(); print('RESULT grader', _f, 'read')\n"
            "    except OSError as _e:\n        print('RESULT grader', _f, type(_e).__name__)\n"),
        "unix": (
            "import socket\n_s = socket.socket(socket.AF_UNIX)\n"
            f"try:\n    _s.connect({listen.unix_path!r}); print('RESULT unix connected')\n"
            "except OSError as _e:\n    print('RESULT unix', type(_e).__name__)\n"),
        "abstract": (
            "import socket\n_s = socket.socket(socket.AF_UNIX)\n"
            f"try:\n    _s.connect({ABSTRACT!r}); print('RESULT abstract connected')\n"
            "except OSError as _e:\n    print('RESULT abstract', type(_e).__name__)\n"),
        "udp": (
            "import socket\n_u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            f"try:\n    _u.sendto(b'leak', ('127.0.0.1', {listen.udp_port})); print('RESULT udp sent')\n"
            "except OSError as _e:\n    print('RESULT udp', _e.errno)\n"),
        "tcp": (
            "import socket\n_t = socket.socket()\n_t.settimeout(5)\n"
            f"try:\n    _t.connect(('127.0.0.1', {listen.tcp_port})); print('RESULT tcp connected')\n"
            "except OSError as _e:\n    print('RESULT tcp', _e.errno)\n"),
        # signals by number (SIGUSR1 = 10, SIGKILL = 9): an import of signal is flagged by the static scan, and
        # this case tests the sandbox
        "kill": (
            "import os\n"
            "for _pid, _sig in ((__GRADER_PID__, 10), (os.getppid(), 9)):\n"
            "    try:\n        os.kill(_pid, _sig); print('RESULT kill sent', _pid == __GRADER_PID__)\n"
            "    except OSError as _e:\n        print('RESULT kill', type(_e).__name__)\n"),
        "linger": (
            "import os, subprocess, sys\n"
            f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(900)', {SLEEPER!r}], start_new_session=True,\n"
            "                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            "    if os.fork() == 0:\n"
            f"        os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(900)', {SLEEPER + '-2'!r}])\n"
            "    os._exit(0)\n"
            "os.wait()\nprint('RESULT linger started')\n"),
        "attnlab": "import attnlab\n",
        "read": (
            "import os\n_names = set()\n"
            "for _up in ('..', '../..', '../../..', '../../../..', '../../../../..'):\n"
            "    try:\n        _names |= set(os.listdir(_up))\n    except OSError:\n        pass\n"
            f"print('RESULT names', sorted(_names & set({forbidden!r})))\n"
            f"for _path in ({str(solutions)!r}, {str(course / 'gradebook.db')!r}, {str(course)!r}, {str(ROOT / 'src')!r},"
            " '../../../source', '/etc/shadow'):\n"
            "    print('RESULT exists', os.path.exists(_path))\n"),
        "plant": (
            "import os, sysconfig\n"
            "for _path in (os.path.join(sysconfig.get_paths()['purelib'], 'attnlab_planted.pth'), '/usr/attnlab_planted',"
            f" '/attnlab_planted', '/tmp/attnlab_planted', os.path.join('..', 'attnlab_planted'), {str(course / 'planted.py')!r}):\n"
            "    try:\n        open(_path, 'w').write('import os\\n'); print('RESULT planted', _path)\n"
            "    except OSError as _e:\n        print('RESULT plant', type(_e).__name__)\n"),
        "escape": (
            "import ctypes, os, socket, stat\n_libc = ctypes.CDLL(None, use_errno=True)\n"
            "print('RESULT unshare', _libc.unshare(0x10000000))\n"  # CLONE_NEWUSER
            "print('RESULT mount', _libc.mount(b'none', b'/tmp', b'tmpfs', 0, None))\n"
            "print('RESULT interfaces', [n for _, n in socket.if_nameindex()])\n"
            "try:\n    os.mknod('disk', stat.S_IFBLK | 0o600, os.makedev(8, 0)); print('RESULT mknod made')\n"
            "except OSError as _e:\n    print('RESULT mknod', type(_e).__name__)\n"),
        # symbolic links planted where the grader writes after the kernel ends: its socket folder, its
        # working folder (nbgrader's output); the targets outside must stay as they are
        "symlinks": (
            "import os\n"
            "from ipykernel.connect import get_connection_file\n"
            "_runtime = os.path.dirname(get_connection_file())\n"
            "for _name in ('kernel.json', 'kernel-9'):\n"
            "    _link = os.path.join(_runtime, _name)\n"
            "    if os.path.lexists(_link):\n        os.remove(_link)\n"
            f"    os.symlink({str(victims['runtime'])!r}, _link)\n"
            f"for _name in ('exercises.ipynb', 'timestamp.txt', 'exercises.html'):\n"
            "    if os.path.lexists(_name):\n        os.remove(_name)\n"
            f"    os.symlink({str(victims['work'])!r}, _name)\n"
            "print('RESULT symlinks planted')\n"),
        # runaway code that the CPU-time limit ends, however busy the machine
        "cpuburn": (
            "import threading\n"
            "def _spin():\n    while True:\n        pass\n"
            "for _ in range(2):\n    threading.Thread(target=_spin, daemon=True).start()\n"
            "import time\ntime.sleep(10_000)\n"),
        "loop": "while True:\n    pass\n",
        # red team 15: a module written into the kernel's folder, which the static scan never reads, imported
        # after the folder is put on sys.path: modules come from the Python installation only
        "module_folder": (
            "import os, sys\nopen('attnlab_spy.py', 'w').write('X = 1\\n')\nsys.path.insert(0, os.getcwd())\n"
            "try:\n    import attnlab_spy\n    print('RESULT module imported')\n"
            "except ModuleNotFoundError as _e:\n"
            "    print('RESULT module refused', 'not part of the Python installation' in str(_e))\n"),
        **({"compile": (  # torch.compile's C++ backend, whose precompiled header was past the file limit
            "import torch\nprint('RESULT compile', torch.compile(lambda t: t * 2 + 1)(torch.ones(3)).tolist())\n")}
           if shutil.which("g++") else {}),
    }


# what each case must print (exactly these RESULT lines, in order) and how it scores
EXPECTED_PRINTS = {
    "env": ["RESULT env [] False"],
    "proc": ["RESULT proc [] True", "RESULT grader environ FileNotFoundError", "RESULT grader cmdline FileNotFoundError"],
    "unix": ["RESULT unix FileNotFoundError"],
    "abstract": ["RESULT abstract ConnectionRefusedError"],
    "udp": ["RESULT udp sent"],  # to the namespace's own loopback: nothing arrives outside
    "tcp": ["RESULT tcp 111"],  # ECONNREFUSED: nothing listens on the namespace's own loopback
    "kill": ["RESULT kill ProcessLookupError", "RESULT kill sent False"],  # pid 1 of the namespace ignores it
    "linger": ["RESULT linger started"],
    "attnlab": [],
    "read": ["RESULT names []"] + ["RESULT exists False"] * 6,
    "plant": ["RESULT plant OSError"] * 5 + ["RESULT plant FileNotFoundError"],  # read-only (EROFS), absent
    "escape": ["RESULT unshare -1", "RESULT mount -1", "RESULT interfaces ['lo']", "RESULT mknod PermissionError"],
    "symlinks": ["RESULT symlinks planted"],
    "cpuburn": [],
    "loop": [],
    "module_folder": ["RESULT module refused True"],
    **({"compile": ["RESULT compile [3.0, 3.0, 3.0]"]} if shutil.which("g++") else {}),
}
# "full": the model answer's score; "first_lost": only the first part's points are lost (the score of the
# model answer with the first cell left as its stub); "zero": the tamper guard's static scan flags the
# code (it starts programs, uses ctypes or reads the kernel's connection), so no part is graded
# automatically, but the attack still runs and is checked
FLAGGED = ("linger", "escape", "symlinks")
SCORE = ({case: "full" for case in EXPECTED_PRINTS} | {"attnlab": "first_lost", "loop": "first_lost", "cpuburn": "first_lost",
                                                       "module_folder": "first_lost"}
         | {case: "zero" for case in FLAGGED})
STATUS = {case: "flagged" if case in FLAGGED else "graded" for case in EXPECTED_PRINTS}
# the CPU-time limit (RLIMIT_CPU) kills the kernel with SIGXCPU, signal 24, however busy the machine
REASON = {"loop": "cell {first} crashed the kernel (killed by signal 24)",
          "cpuburn": "cell {first} crashed the kernel (killed by signal 24)"} | {
          case: "modifies the grading machinery" for case in FLAGGED}
# graded again with every core busy: the honest notebooks, the loop that the CPU-time limit ends, and the signal
# (environment and import cases do not depend on load; they are graded once). cpuburn (the same limit reached by two
# threads) is graded idle only: its threads' CPU time adds up the same however busy the cores are, and its second run
# spent the whole CPU limit again, then a run of the notebook without its cell, with the busy loop running all along
LOADED = ("model", "firststub", "loop", "kill")

# the grader: grades the spec's submissions with its pid written into them; SIGUSR1 is recorded
# (only in the main process: the grading processes import this file too)
GRADER = r'''
import json, os, signal, sys
from dataclasses import asdict
from pathlib import Path
from attnlab.instructor.grading import Limits, grade
if __name__ == "__main__":
    spec = json.loads(Path(sys.argv[1]).read_text())
    got = Path(spec["signalled"])
    signal.signal(signal.SIGUSR1, lambda *a: got.write_text("SIGUSR1"))
    for path in spec["submissions"].values():
        p = Path(path)
        if p.is_file():
            p.write_text(p.read_text().replace("__GRADER_PID__", str(os.getpid())))
    results = grade(Path(spec["root"]), spec["chapter"], spec["submissions"], spec["db"], workers=2,
                    limits=Limits(**spec["limits"]), out_dir=Path(spec["out"]),
                    progress=lambda r: print("finished", r.student, flush=True))
    Path(spec["results"]).write_text(json.dumps([asdict(r) for r in results]))
'''


def _first_cell() -> str:
    return next(iter(solution_code(CHAPTER)))


def _stub() -> str:
    cells = load(ROOT / "chapters" / CHAPTER / "exercises.ipynb")["cells"]
    cell = next(c for c in cells if c["metadata"].get("nbgrader", {}).get("solution"))
    return "".join(cell["source"])


def _grade(root: Path, folder: Path, submissions: dict[str, Path], listen: Listeners, busy: bool) -> dict:
    out, results, signalled = folder / "out", folder / "results.json", folder / "signalled"
    spec = {"root": str(root), "chapter": CHAPTER, "submissions": {k: str(v) for k, v in submissions.items()},
            "db": f"sqlite:///{root / 'gradebook.db'}", "limits": LIMITS, "out": str(out), "results": str(results),
            "signalled": str(signalled)}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "spec.json").write_text(json.dumps(spec))
    (folder / "grader.py").write_text(GRADER)
    env = dict(os.environ, GRADER_TOKEN=TOKEN, SSH_AUTH_SOCK=listen.unix_path, ATTNLAB_COURSE_ROOT=str(root))
    hogs = []
    if busy:  # bounded busy loops, stopped below in any case: one on each core of this test process's share
        # (under pytest-xdist the other test processes keep the other cores busy), so every core has more
        # runnable processes than it can run while the notebooks are graded
        loop = "import time\nend = time.time() + 900\nwhile time.time() < end:\n    pass\n"
        hogs = [subprocess.Popen([sys.executable, "-c", loop]) for _ in range(core_share())]
    try:
        proc = subprocess.run([sys.executable, str(folder / "grader.py"), str(folder / "spec.json"),
                               "--db", f"postgresql://grader:{PASSWORD}@db.invalid/attnlab"],
                              env=env, cwd=folder, capture_output=True, text=True, timeout=1500)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return {"results": {r["student"]: r for r in json.loads(results.read_text())}, "out": out,
            "signalled": signalled.exists(), "stdout": proc.stdout}


def _sleepers() -> list[int]:
    """Ids of processes whose command line carries this run's marker."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if SLEEPER.encode() in cmdline:
                found.append(int(entry))
    return found


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    isolation = _isolation()
    base = tmp_path_factory.mktemp("sandbox")
    root = copy_course(base / "course")
    mp = pytest.MonkeyPatch()
    mp.setenv("ATTNLAB_COURSE_ROOT", str(root))
    mp.delenv("ATTNLAB_GRADEBOOK_URL", raising=False)
    listen = Listeners(base)
    victims = {"runtime": base / "victim-runtime.txt", "work": base / "victim-work.txt"}
    for path in victims.values():
        path.write_text("untouched")
    try:
        status, out, err = cli("release", "--out", str(root / "dist" / "students.zip"))
        assert status == 0, out + err
        first = _first_cell()
        model = solution_code(CHAPTER)[first]
        notebooks = base / "notebooks"
        subs = {"model": write_submission(CHAPTER, notebooks / "model.ipynb"),
                "firststub": write_submission(CHAPTER, notebooks / "firststub.ipynb", {first: _stub()})}
        attacks = _attacks(root, listen, victims)
        for case in ("loop", "cpuburn", *attacks):  # the slow ones first: progress must not wait for them
            subs[case] = write_submission(CHAPTER, notebooks / f"{case}.ipynb", {first: attacks[case] + "\n" + model})
        # a student folder with a second notebook, and a notebook past the cell cap
        two = base / "two"
        write_submission(CHAPTER, two / "exercises.ipynb")
        write_submission(CHAPTER, two / "draft.ipynb", base="student")
        subs["two"] = two
        big = load(subs["model"])
        big["cells"] += [{"cell_type": "markdown", "metadata": {}, "source": "more"}] * Limits().max_cells
        subs["toomany"] = notebooks / "toomany.ipynb"
        subs["toomany"].write_text(json.dumps(big))
        idle = _grade(root, base / "idle", subs, listen, busy=False)
        left = _sleepers()
        loaded_subs = {}
        for case in LOADED:
            answers = {"model": None, "firststub": {first: _stub()}}.get(case, {first: attacks.get(case, "") + "\n" + model})
            loaded_subs[case] = write_submission(CHAPTER, notebooks / "loaded" / f"{case}.ipynb", answers)
        loaded = _grade(root, base / "loaded", loaded_subs, listen, busy=True)
        yield {"idle": idle, "loaded": loaded, "arrived": list(listen.arrived), "left": left, "victims": victims,
               "isolation": isolation, "first": first, "root": root, "order": list(subs)}
    finally:
        listen.close()
        for pid in _sleepers():  # never expected; do not leave them behind if the sandbox failed
            os.kill(pid, signal.SIGKILL)
        mp.undo()


def _printed(batch, case: str, which: str = "idle") -> list[str]:
    nb = json.loads((batch[which]["out"] / case / CHAPTER / "exercises.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == batch["first"])
    return cell["outputs"]


def _result_lines(batch, case: str) -> list[str]:
    text = "".join("".join(o.get("text", "")) for o in _printed(batch, case) if o.get("output_type") == "stream")
    return [line for line in text.splitlines() if line.startswith("RESULT ")]


def _expected_score(batch, case: str, which: str = "idle") -> float:
    results = batch[which]["results"]
    kind = SCORE[case]
    if kind == "full":
        return results["model"]["score"]
    if kind == "first_lost":
        return results["firststub"]["score"]
    assert kind == "zero", kind
    return 0.0


@pytest.mark.slow
def test_the_controls_score_as_expected(batch):
    results = batch["idle"]["results"]
    assert results["model"]["status"] == "graded" and results["model"]["score"] == results["model"]["max_score"]
    assert results["firststub"]["score"] < results["model"]["score"]


@pytest.mark.slow
@pytest.mark.parametrize("case", list(EXPECTED_PRINTS))
def test_attack_gets_its_exact_outcome(batch, case):
    result = batch["idle"]["results"][case]
    assert result["status"] == STATUS[case], result
    assert result["score"] == _expected_score(batch, case), result
    assert _result_lines(batch, case) == EXPECTED_PRINTS[case]
    if case in REASON:
        assert REASON[case].format(first=batch["first"]) in "; ".join(result["reasons"] + result["notes"]), result


@pytest.mark.slow
def test_nothing_reaches_the_listeners_outside(batch):
    assert batch["arrived"] == []


@pytest.mark.slow
def test_no_signal_reaches_the_grader(batch):
    assert not batch["idle"]["signalled"] and not batch["loaded"]["signalled"]


@pytest.mark.slow
def test_no_process_outlives_its_notebook(batch):
    assert batch["left"] == [], f"processes left behind by the linger case: {batch['left']}"


@pytest.mark.slow
def test_import_of_the_course_package_fails_with_a_clear_message(batch):
    errors = [o for o in _printed(batch, "attnlab") if o.get("output_type") == "error"]
    assert errors and errors[0]["ename"] == "ModuleNotFoundError"
    assert errors[0]["evalue"] == sandbox.NO_COURSE_PACKAGE


@pytest.mark.slow
def test_planted_files_and_links_change_nothing_outside(batch):
    for path in batch["victims"].values():
        assert path.read_text() == "untouched", path
    assert not (batch["root"] / "planted.py").exists()
    purelib = Path(__import__("sysconfig").get_paths()["purelib"])
    assert not (purelib / "attnlab_planted.pth").exists()


@pytest.mark.slow
def test_outcomes_do_not_change_when_the_cores_are_busy(batch):
    def outcome(result):
        why = "; ".join(result["reasons"] + result["notes"])
        return result["status"], result["score"], {g: p["score"] for g, p in result["parts"].items()}, re.sub(r"\d+(\.\d+)? s\b", "N s", why)

    idle, loaded = batch["idle"]["results"], batch["loaded"]["results"]
    assert {case: outcome(loaded[case]) for case in LOADED} == {case: outcome(idle[case]) for case in LOADED}


@pytest.mark.slow
def test_progress_is_reported_as_each_notebook_finishes(batch):
    finished = [line.split()[1] for line in batch["idle"]["stdout"].splitlines() if line.startswith("finished ")]
    assert sorted(finished) == sorted(batch["idle"]["results"])
    # "loop" runs until its CPU time is spent; notebooks submitted after it finish (and are reported) first
    after = batch["order"][batch["order"].index("loop") + 1:]
    assert any(finished.index(case) < finished.index("loop") for case in after), finished


@pytest.mark.slow
def test_a_second_notebook_is_named_and_the_first_graded(batch):
    result = batch["idle"]["results"]["two"]
    assert result["status"] == "graded" and result["score"] == batch["idle"]["results"]["model"]["score"]
    assert any(n.startswith("also submitted draft.ipynb (not graded: only exercises.ipynb is)") for n in result["notes"])


@pytest.mark.slow
def test_a_notebook_past_the_cell_cap_is_invalid_and_not_run(batch):
    result = batch["idle"]["results"]["toomany"]
    assert result["status"] == "invalid" and result["score"] is None
    assert f"more than the limit of {Limits().max_cells}" in result["reasons"][0]


# --------------------------------------------------------------------------- fast checks, no grading

def test_kernel_environment_is_an_allow_list(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_TOKEN", TOKEN)
    monkeypatch.setenv("SSH_AUTH_SOCK", "/tmp/agent.sock")
    monkeypatch.setenv("LANG", "C.UTF-8")
    env = sandbox.kernel_env({"threads": 2}, tmp_path)
    assert set(env) <= {"HOME", "TMPDIR", "IPYTHONDIR", "MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
                        "PYTHONDONTWRITEBYTECODE", "PATH", "LANG", "PYDEVD_DISABLE_FILE_VALIDATION",
                        "TRITON_INTERPRET", "TORCHINDUCTOR_CPP_CACHE_PRECOMPILE_HEADERS", *sandbox.THREAD_ENV}
    assert env["LANG"] == "C.UTF-8" and env["OMP_NUM_THREADS"] == "2"
    # torch.compile's precompiled header is larger than the kernel's file limit (red team 15): off
    assert env["TORCHINDUCTOR_CPP_CACHE_PRECOMPILE_HEADERS"] == "0"


def test_bwrap_command_mounts_neither_the_course_nor_the_package(tmp_path):
    work, runtime = tmp_path / "work", tmp_path / "runtime"
    work.mkdir(), runtime.mkdir()
    hidden = [str(ROOT), str(ROOT / "src" / "attnlab")]
    args = sandbox.bwrap_command({"path": "bwrap"}, str(work), str(runtime), {"HOME": str(work)}, hidden, ["true"])
    sources = [args[i + 1] for i, a in enumerate(args) if a in ("--ro-bind", "--bind", "--ro-bind-try")]
    assert not [s for s in sources if sandbox._under(s, str(ROOT / "src")) or s == str(ROOT)]
    assert [args[i + 1] for i, a in enumerate(args) if a == "--bind"] == [str(runtime), str(work), str(work / ".shm")]
    assert args[args.index(str(work / ".shm")) + 1] == "/dev/shm" and "/dev/shm" not in args[:args.index("--bind")]
    for flag in ("--unshare-all", "--die-with-parent", "--new-session", "--clearenv", "--disable-userns"):
        assert flag in args
    assert "--share-net" not in args and args[args.index("--cap-drop") + 1] == "ALL"
    assert args[args.index("--chdir") + 1] == str(work)


def test_shared_memory_is_on_disk_in_the_kernel_folder(tmp_path):
    """Round 9's white box: a private tmpfs on /dev/shm held what a cell wrote in the host's memory, past the
    address-space cap and unseen by the disk limit. It is the kernel folder's .shm now, which that limit counts."""
    iso = _isolation()
    work = tmp_path / "work"
    work.mkdir()
    code = ("import os\nwith open('/dev/shm/block', 'wb') as f:\n    f.write(b'x' * 3 * 2**20)\n"
            "print(os.statvfs('/dev/shm').f_bsize > 0, sorted(os.listdir('/dev/shm')))")
    args = sandbox.bwrap_command(iso, str(work), None, sandbox.kernel_env({}, work), [], [sys.executable, "-I", "-c", code])
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60, env={})
    assert proc.returncode == 0 and proc.stdout.strip() == "True ['block']", (proc.returncode, proc.stderr[-500:])
    block = work / ".shm" / "block"
    assert block.stat().st_size == 3 * 2**20 and block.stat().st_blocks * 512 >= 3 * 2**20


def test_isolation_report_names_what_runs():
    lines = sandbox.isolation_report(isolation={"tool": "bwrap", "path": "/usr/bin/bwrap", "version": "0.8.0",
                                                "namespaces": ["mnt", "pid", "net", "ipc", "uts"]})
    assert lines[0].startswith("kernel isolation: bubblewrap 0.8.0") and "mount, PID, network, IPC, UTS" in lines[0]
    assert "CPU 1200 s" in lines[1]  # twice the default notebook limit of 600 s
    fallback = sandbox.isolation_report(isolation={"tool": "landlock", "abi": 6, "fallback": "bubblewrap is not installed"})
    assert fallback[0] == "warning: bubblewrap is not installed; falling back to Landlock"
    assert fallback[1].startswith("kernel isolation: Linux Landlock ABI 6 (writes, reads, TCP, signals")
    none = sandbox.isolation_report(isolation={"tool": "rlimits", "fallback": "Landlock is switched off"})
    assert "resource limits only" in none[1]


def test_bwrap_is_required_when_asked_for(monkeypatch):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="bubblewrap is not installed"):
        sandbox.probe_isolation("bwrap")
    assert sandbox.probe_isolation("auto")["tool"] in ("landlock", "rlimits")
    assert "not installed" in sandbox.probe_isolation("auto")["fallback"]


def test_oversized_notebooks_are_invalid_with_what_to_ask_for(tmp_path):
    nb = load(write_submission(CHAPTER, tmp_path / "ok.ipynb"))
    nb["cells"] = nb["cells"] + [{"cell_type": "markdown", "metadata": {}, "source": "x"}] * 1000
    (tmp_path / "many.ipynb").write_text(json.dumps(nb))
    why = check_notebook(tmp_path / "many.ipynb", Limits(max_cells=1000))
    assert why and f"has {len(nb['cells'])} cells, more than the limit of 1000" in why and "fresh copy" in why
    assert check_notebook(tmp_path / "many.ipynb") is None  # without limits: a valid notebook
    why = check_notebook(tmp_path / "many.ipynb", Limits(max_notebook_mb=0.01))
    assert why and "more than the limit of 0.01 MiB" in why and "clear all outputs" in why


def test_extra_notebooks_are_named(tmp_path):
    (tmp_path / "exercises.ipynb").write_text("{}")
    assert extra_notebooks(tmp_path, tmp_path / "exercises.ipynb") == ""
    (tmp_path / "copy.ipynb").write_text("{}")
    assert extra_notebooks(tmp_path, tmp_path / "exercises.ipynb").startswith("also submitted copy.ipynb (not graded")
