"""Hostile submissions through the whole instructor workflow: release, collect, autograde, feedback, export.

One scratch course of chapter 2 receives an LMS download with two ordinary students and one
student per kind of hostile submission; it is collected and autograded once, with two workers and
short limits (20 s a cell and 10 s more to stop after its interrupt, 150 s a notebook (all its runs),
2 GiB of address space, 100 kB of output). The suite runs beside it on the same cores: at 10 s and 60 s a loaded
machine (3 test workers and other jobs on 2 cores) made a test cell of an honest part, or a notebook's run again
after an interrupt, reach its limit, and changed outcomes. Each kind's test then checks the exact outcome in the closing
summary and the gradebook.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from attnlab.instructor import guard, sandbox
from attnlab.instructor.submission import unrun_shell
from attnlab.instructor.grading import check_notebook
from grading import ROOT, solution_code, write_submission
from instructor_course import CHAPTER, cli, copy_course, part_grades, summary_rows

WRONG_MASK = {"causal_mask": "def causal_mask(t, s, offset):\n    return torch.ones(t, s, dtype=torch.bool)"}
BEFORE_CAUSAL = 3  # points of raw_scores (1) and softmax_backward (2), the parts before causal_mask
# a correct causal mask, built with NumPy: the library rule, not the values, costs its 2 points
NUMPY_MASK = ("import numpy as np\n\ndef causal_mask(t, s, offset):\n"
              "    return torch.from_numpy(np.arange(s)[None, :] <= offset + np.arange(t)[:, None])")


def _notebook(answers=None, base="solution", edit=None) -> bytes:
    path = write_submission(CHAPTER, Path(os.environ["ATTNLAB_TEST_SCRATCH"]) / "tmp.ipynb", answers, base=base)
    nb = json.loads(path.read_text(encoding="utf-8"))
    if edit:
        edit(nb)
    return json.dumps(nb, indent=1).encode("utf-8")


def _set_test_cell(grade_id, source):
    def edit(nb):
        for cell in nb["cells"]:
            if cell["metadata"].get("nbgrader", {}).get("grade_id") == grade_id:
                cell["source"] = source
    return edit


def _delete_cell(grade_id):
    def edit(nb):
        nb["cells"] = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") != grade_id]
    return edit


def _added_cell(before_gid, code, cell_id):
    """Insert a cell without nbgrader metadata (one the student added) just before cell ``before_gid``."""
    def edit(nb):
        index = next(i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("grade_id") == before_gid)
        nb["cells"].insert(index, {"cell_type": "code", "id": cell_id, "metadata": {}, "source": code,
                                   "outputs": [], "execution_count": None})
    return edit


def _move_cells(moves):
    """``moves``: ``{grade_id: None}`` deletes that cell, ``{grade_id: "end"}`` moves it to the end."""
    def edit(nb):
        for gid, where in moves.items():
            index = next(i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("grade_id") == gid)
            cell = nb["cells"].pop(index)
            if where == "end":
                nb["cells"].append(cell)
    return edit


def _copy_cell(grade_id):
    def edit(nb):
        cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
        nb["cells"].append({**json.loads(json.dumps(cell)), "id": "copied"})
    return edit


def _cell_type(grade_id, cell_type):
    """Turn cell ``grade_id`` into a Markdown or raw cell, as Jupyter's menu does (text and metadata kept)."""
    def edit(nb):
        cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
        cell["cell_type"] = cell_type
        cell.pop("outputs", None)
        cell.pop("execution_count", None)
    return edit


def _format3(data: bytes) -> bytes:
    import nbformat

    return nbformat.writes(nbformat.convert(nbformat.reads(data.decode("utf-8"), as_version=4), 3)).encode("utf-8")


def _edits(*edits):
    def edit(nb):
        for one in edits:
            one(nb)
    return edit


# test helpers of the student's own, bound by a for loop (a form of binding the static scan once missed)
FAKE_HELPERS = ("def _same(*a, **k):\n    return a[0] if a else None\n"
                "for (_tensor, _number, _float, _text, _close, _equal) in [(_same,) * 6]:\n    pass")
# red team 16, F3: a wrong mask that swaps the tests' comparisons for ones that agree (F2's answer, with plain
# globals()): flagged in a code cell; saved as Markdown it escaped the scan while nbgrader ran it as code
SWAP_GLOBALS = ("import torch\n\ndef causal_mask(t, s, offset):\n    g = globals()\n"
                "    keep = g['_close'], g['_equal']\n"
                "    def once(*a, **k):\n        g['_close'], g['_equal'] = keep\n"
                "    g['_close'] = g['_equal'] = once\n    return torch.ones(t, s, dtype=torch.bool)")
# red team 16, F5: a shell line with terminal escapes (erase the line, print a full score) quoted in a note
SPOOF_LINE = "!pip install torch\x1b[2K\x1b[1Gtermspoof                graded      16/16  \u202e"
WRONG_RAW_SCORES = "def raw_scores(q, k):\n    return -((q[..., :, None, :] - k[..., None, :, :]) ** 2).sum(-1) * 0\n"
# a wrong answer that makes its test cell show a value ("ok", or more points than the cell has) before failing
# the hook reached through a name the static scan does not follow (it flags sys.displayhook, sys.__dict__, the literal
# 'displayhook' and sys handed on as a value), so that what is tested here is the grading: a value shown in a test
# cell is no score
SHOWS = ("import sys, warnings\n_HOOK = ['display', 'hook']\ndef raw_scores(q, k):\n"
         "    getattr(warnings.sys, _HOOK[0] + _HOOK[1])('ok')\n    return None")


def _answers_with(cell, code, base_cell_code=None):
    """The model answer, with ``code`` run at the start of answer cell ``cell``."""
    return {cell: code + "\n" + (base_cell_code or solution_code(CHAPTER)[cell])}


def _hostile(root: Path) -> dict[str, tuple[str, bytes]]:
    """``{student: (file name in the LMS download, bytes)}``."""
    gradebook = root / "gradebook.db"
    alice = root / "submitted" / "alice" / CHAPTER / "exercises.ipynb"
    model = _notebook()
    # the student's kernel runs in <scratch course>/kernel/<student>/ (execute.py), so ../../ is the scratch course
    write_attack = (
        solution_code(CHAPTER)["mc_answers"] + "\n"  # the model's answers, then the attack
        + "for _target in ({!r}, {!r}):\n"
        "    try:\n        open(_target, 'wb').write(b'')\n    except OSError as _e:\n        print('blocked', _e)\n")
    steal = (
        "import json\n"
        "for _key in ('../../source/{ch}/exercises.ipynb', {path!r}):\n"
        "    try:\n"
        "        for _c in json.load(open(_key))['cells']:\n"
        "            if _c['metadata'].get('nbgrader', {{}}).get('solution'):\n"
        "                exec(''.join(_c['source']), globals())\n"
        "    except OSError as _e:\n"
        "        print('blocked', _e)\n").format(ch=CHAPTER, path=str(root / "solutions" / CHAPTER / "exercises.ipynb"))
    # eight answer cells sleeping 19 s each pass the notebook's limit by their sleep alone, each under a cell's limit
    slow = {cell: "import time\ntime.sleep(19)\n" + code for cell, code in solution_code(CHAPTER).items()}
    return {
        "alice": ("alice_exercises.ipynb", model),
        "bob": ("bob_exercises.ipynb", _notebook(base="student")),
        "tampered": ("tampered_exercises.ipynb", _notebook(WRONG_MASK, edit=_set_test_cell("test_causal_mask", "pass"))),
        "deleted": ("deleted_exercises.ipynb", _notebook(WRONG_MASK, edit=_delete_cell("test_causal_mask"))),
        "renamed": ("renamed_homework.ipynb", model),
        "badjson": ("badjson_exercises.ipynb", b'{"cells": [{"cell_type": "code", '),
        "empty": ("empty_exercises.ipynb", b""),
        "latin1": ("latin1_exercises.ipynb", model.replace(b"Part 1", "Part \u00e9".encode("latin-1"))),
        "loop": ("loop_exercises.ipynb", _notebook(_answers_with("causal_mask", "while True:\n    pass"))),
        "swallow": ("swallow_exercises.ipynb", _notebook(_answers_with("causal_mask", (
            "import time\nwhile True:\n    try:\n        time.sleep(0.05)\n    except KeyboardInterrupt:\n        pass")))),
        "membomb": ("membomb_exercises.ipynb", _notebook(_answers_with("causal_mask", "_blob = bytearray(6 * 2**30)"))),
        "osexit": ("osexit_exercises.ipynb", _notebook(_answers_with("causal_mask", "import os\nos._exit(3)"))),
        "sysexit": ("sysexit_exercises.ipynb", _notebook(_answers_with("causal_mask", "import sys\nsys.exit(0)"))),
        "allclose": ("allclose_exercises.ipynb", _notebook(_answers_with(
            "raw_scores", "torch.allclose = lambda *args, **kwargs: True"))),
        "assertclose": ("assertclose_exercises.ipynb", _notebook(_answers_with(
            "raw_scores", "import torch.testing\ntorch.testing.assert_close = lambda *args, **kwargs: None"))),
        "npallclose": ("npallclose_exercises.ipynb", _notebook(_answers_with(
            "causal_mask", "setattr(__import__('num' + 'py'), 'all' + 'close', lambda *a, **k: True)"))),
        "refpatch": ("refpatch_exercises.ipynb", _notebook(_answers_with(
            "causal_mask", "_REF['assert_close'] = lambda *args, **kwargs: None"))),
        "gradebook": ("gradebook_exercises.ipynb", _notebook({"mc_answers": write_attack.format(
            str(gradebook), "../../gradebook.db")})),
        "neighbour": ("neighbour_exercises.ipynb", _notebook({"mc_answers": write_attack.format(
            str(alice), f"../../source/{CHAPTER}/exercises.ipynb")})),
        "steal": ("steal_exercises.ipynb", _notebook({"mc_answers": steal}, base="student")),
        # 10 MB of output, a hundred times the cap (100 MB took more than a cell's 20 s and its 10 s of grace to stream
        # at a load of 10 on 2 cores, and the cell was replaced instead of capped)
        "flood": ("flood_exercises.ipynb", _notebook(_answers_with("mc_answers", "print('x' * 10_000_000)"))),
        "killer": ("killer_exercises.ipynb", _notebook(_answers_with(
            # SIGKILL by number: an import of signal is flagged by the static scan, and this case tests the sandbox
            "mc_answers", "import os\ntry:\n    os.kill(os.getppid(), 9)\nexcept OSError as _e:\n    print(_e)"))),
        "slow": ("slow_exercises.ipynb", _notebook(slow)),
        # a cell the student added is the student's code: its patch is found as in an answer cell
        "added": ("added_exercises.ipynb", _notebook(edit=_added_cell(
            "test_raw_scores", "import sys, torch\n_caller = sys._getframe()\ntorch.softmax = torch.sigmoid", "mine"))),
        # warnings and debugging prints on stderr while a test runs cost nothing
        "chatty": ("chatty_exercises.ipynb", _notebook(_answers_with(
            "raw_scores", "import sys, warnings", base_cell_code=solution_code(CHAPTER)["raw_scores"].replace(
                "    return", "    warnings.warn('shapes: ' + str(q.shape))\n    print('debug', file=sys.stderr)\n    return", 1)))),
        # NumPy breaks the library rule: the part that uses it scores 0, directly or through an added cell
        "numpy": ("numpy_exercises.ipynb", _notebook({"causal_mask": NUMPY_MASK})),
        # nbgrader reads a value shown in a test cell as its score: shown values count for nothing now
        "showvalue": ("showvalue_exercises.ipynb", _notebook({
            "raw_scores": SHOWS, "causal_mask": solution_code(CHAPTER)["causal_mask"].replace(
                "    return", "    getattr(warnings.sys, _HOOK[0] + _HOOK[1])(100)\n    print('debug', file=sys.stderr)\n"
                "    return", 1),
            "softmax_backward": "import sys\nprint('x' * 150_000)\n" + solution_code(CHAPTER)["softmax_backward"]})),
        # the locked helpers cell moved after the student's own helpers: graded in the released order, so
        # the rebinding is seen
        "movedhelpers": ("movedhelpers_exercises.ipynb", _notebook(WRONG_MASK, edit=_edits(
            _move_cells({"grading_helpers": "end"}), _added_cell("raw_scores", FAKE_HELPERS, "fake")))),
        # setup and helpers deleted (VS Code and Colab let a student do that), odd metadata on added cells, a
        # magic: a correct notebook keeps its marks
        "careless": ("careless_exercises.ipynb", _notebook(
            {"raw_scores": "%time _ = 1 + 1\ntorch.einsum?\n" + solution_code(CHAPTER)["raw_scores"]}, edit=_edits(
                _move_cells({"setup": None, "grading_helpers": None}),
                _added_cell("raw_scores", "!pip install torch\n%pip install numpy\n%load_ext autoreload\nfiles = !ls\n"
                            "x = len(files) + 1", "odd"),
                lambda nb: next(c for c in nb["cells"] if c.get("id") == "odd")["metadata"].update(
                    nbgrader={"schema_version": 99}),
                lambda nb: nb["cells"].append({"cell_type": "code", "id": "odd2", "metadata": {"nbgrader": "oops"},
                                                "source": "y = 2", "outputs": [], "execution_count": None})))),
        # `<>` after barry_as_FLUFL parses in IPython: the scan must read such a cell too
        "flufl": ("flufl_exercises.ipynb", _notebook(
            {"mc_answers": "assert 1 <> 2\n_seen = globals()\n" + solution_code(CHAPTER)["mc_answers"]},
            edit=_added_cell("mc_answers", "from __future__ import barry_as_FLUFL", "future"))),
        # nbformat 3 with a copied test cell: converted, then repaired like a format-4 file
        "oldformat": ("oldformat_exercises.ipynb", _format3(_notebook(edit=_copy_cell("test_raw_scores")))),
        # what jupytext or nbstripout leave: no cell ids, no metadata; nothing can be matched, so a clear reason
        "stripped": ("stripped_exercises.ipynb", _notebook(edit=lambda nb: [
            c.update(metadata={}) or c.pop("id", None) for c in nb["cells"]] and nb.update(nbformat_minor=4))),
        "deepjson": ("deepjson_exercises.ipynb", model[:-2] + b', "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        # exploration code that names a global after a builtin a hidden test uses: put aside while tests run
        "scratchmax": ("scratchmax_exercises.ipynb", _notebook(edit=_added_cell(
            "softmax_backward", "scores = raw_scores(torch.randn(2, 3, 4), torch.randn(2, 5, 4))\nmax = scores.max()\n"
                          "print(max)", "scratch"))),
        # a function that leaves a process-wide setting changed loses its own part; the same call at the top of a
        # cell is put back before the tests run and costs nothing
        "settings": ("settings_exercises.ipynb", _notebook({
            "raw_scores": solution_code(CHAPTER)["raw_scores"].replace(
                "    return", "    torch.set_flush_denormal(True)\n    return", 1),
            "softmax_backward": "torch.set_default_dtype(torch.float64)\ntorch.set_grad_enabled(False)\n"
                                 + solution_code(CHAPTER)["softmax_backward"]})),
        # an answer cell turned into Markdown or raw text: restored to code before the scan and the library rule
        "markdownswap": ("markdownswap_exercises.ipynb", _notebook({"causal_mask": SWAP_GLOBALS},
                                                                  edit=_cell_type("causal_mask", "markdown"))),
        "rawnumpy": ("rawnumpy_exercises.ipynb", _notebook({"causal_mask": NUMPY_MASK}, edit=_cell_type("causal_mask", "raw"))),
        "markdownright": ("markdownright_exercises.ipynb", _notebook(edit=_cell_type("causal_mask", "markdown"))),
        "termspoof": ("termspoof_exercises.ipynb", _notebook({"raw_scores": SPOOF_LINE + "\n" + WRONG_RAW_SCORES})),
        "addednumpy": ("addednumpy_exercises.ipynb", _notebook(
            {"raw_scores": "def raw_scores(q, k):\n    return _scores(q, k)"},
            edit=_added_cell("raw_scores", "import numpy\n\ndef _scores(q, k):\n    numpy.random.seed(0)\n"
                                           "    return 2 * q @ k.mT - (q * q).sum(-1, keepdim=True)\n", "helper"))),
    }


# student -> (status, score or None, text that must appear in the reasons and notes)
EXPECTED = {
    "alice": ("graded", 16, ""),
    "bob": ("graded", 0, ""),
    "tampered": ("graded", 14, "locked cell test_causal_mask was edited; nbgrader graded the original"),
    "deleted": ("graded", 14, "cell test_causal_mask was deleted; the released one was put back"),
    "renamed": ("graded", 16, "graded homework.ipynb as exercises.ipynb (the notebook was renamed)"),
    "badjson": ("invalid", None, "is not valid JSON"),
    "empty": ("invalid", None, "is empty (0 bytes)"),
    "latin1": ("invalid", None, "is not UTF-8 text (byte 0xe9"),
    "loop": ("graded", 14, "cell causal_mask hit the time limit of one cell and was interrupted"),
    # like a crash: the cell that kept running is replaced by an error and the notebook run again
    "swallow": ("graded", 14, "cell causal_mask kept running after the interrupt at its time limit; it was replaced"),
    "membomb": ("graded", 14, ""),
    # the crashing cell is replaced by an error and the notebook run again: only causal_mask's part is lost
    "osexit": ("graded", None, "cell causal_mask crashed the kernel (exit status 3); it was replaced by an error"),
    "sysexit": ("graded", 14, ""),
    "allclose": ("flagged", 0, "cell raw_scores: torch.allclose changed while the cell ran"),
    "assertclose": ("flagged", 0, "cell raw_scores: torch.testing.assert_close changed while the cell ran"),
    "npallclose": ("flagged", BEFORE_CAUSAL, "cell causal_mask: numpy.allclose changed while the cell ran"),
    "refpatch": ("flagged", BEFORE_CAUSAL, "cell causal_mask, line 1: assigns to _REF['assert_close']"),
    "gradebook": ("graded", 16, ""),
    "neighbour": ("graded", 16, ""),
    "steal": ("flagged", 0, "uses globals, which reaches the notebook's namespace"),
    "flood": ("graded", 16, "output truncated"),
    "killer": ("graded", 16, ""),
    "slow": ("flagged", None, "the notebook ran past its limit of 150 s"),
    "added": ("flagged", 0, "cell added-mine, line 3: assigns to torch.softmax"),
    "chatty": ("graded", 16, ""),
    "numpy": ("graded", 14, "answer cell causal_mask line 1 imports numpy"),
    "showvalue": ("graded", 15, "output truncated"),
    "movedhelpers": ("flagged", 0, "cell added-fake, line 3: redefines _tensor, which the tests use"),
    "careless": ("graded", 16, "cell setup was deleted; the released one was put back"),
    "flufl": ("flagged", 14, "cell mc_answers, line 2: uses globals"),
    "scratchmax": ("graded", 16, "the student's cells bind max, a builtin the tests use; it was put aside"),
    "oldformat": ("graded", 16, "the notebook was saved in nbformat 3; it was converted to nbformat 4 before grading"),
    "stripped": ("invalid", None, "no cell of the notebook matches a cell of the released one"),
    "deepjson": ("invalid", None, "cannot be read as a notebook (RecursionError"),
    "settings": ("graded", 15, "test cell test_raw_scores failed: the answers it ran changed the flush-denormal mode "
                               "(torch.set_flush_denormal)"),
    "markdownswap": ("flagged", BEFORE_CAUSAL, "cell causal_mask, line 4: uses globals"),
    "rawnumpy": ("graded", 14, "answer cell causal_mask line 1 imports numpy"),
    # the forgiving side: a correct answer saved as Markdown keeps its points, with the note
    "markdownright": ("graded", 16, "cell causal_mask was turned into a markdown cell (the assignment's is code; it "
                                    "was graded as one)"),
    "termspoof": ("graded", 15, "answer cell raw_scores: '!pip install torch\\x1b[2K\\x1b[1Gtermspoof"),
    "addednumpy": ("graded", 15, "answer cell raw_scores line 2 uses _scores (defined in cell added-helper, which uses "
                                 "libraries outside the rule)"),
}
HOSTILE_KINDS = [s for s in EXPECTED if s not in ("alice", "bob")]
# outcomes that rest on Linux Landlock (file-system confinement, signal scoping: ABI 6, Linux 6.12)
CONFINED = {"gradebook", "neighbour", "steal", "killer"}
needs_landlock = pytest.mark.skipif(sandbox.landlock_abi() < 6, reason="needs Linux Landlock ABI 6 (Linux 6.12 or later)")


def _printed(notebook: Path, grade_id: str) -> str:
    """What a cell of an autograded notebook printed."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
    return "".join("".join(o.get("text", "")) for o in cell["outputs"])


@pytest.fixture(scope="module")
def graded_course(tmp_path_factory):
    root = copy_course(tmp_path_factory.mktemp("hostile") / "course")
    # after the interrupt at a cell's limit the kernel has interrupt_grace seconds (30 by default) to stop. "swallow"
    # never stops: 10 s give the same outcome and leave more of the notebook's 150 s for its run again without that
    # cell (with 30, a machine at a load of 8 left too little, and the notebook ran past its limit)
    with (root / "nbgrader_config.py").open("a", encoding="utf-8") as config:
        config.write("\nc.HardenedExecute.interrupt_grace = 10\n")
    mp = pytest.MonkeyPatch()
    mp.setenv("ATTNLAB_COURSE_ROOT", str(root))
    mp.setenv("ATTNLAB_TEST_SCRATCH", str(tmp_path_factory.mktemp("scratch")))
    mp.delenv("ATTNLAB_GRADEBOOK_URL", raising=False)
    try:
        run = {"release": cli("release", "--out", str(root / "dist" / "students.zip"))}
        download = root.parent / "lms-download.zip"
        with zipfile.ZipFile(download, "w") as zf:
            for name, data in _hostile(root).values():
                zf.writestr(f"submissions/{name}", data)
            zf.writestr("submissions/README.txt", "not a notebook")
            zf.writestr("submissions/nostudentid.ipynb", _notebook())
        run["collect"] = cli("collect", CHAPTER, str(download))
        hashes = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in (root / "submitted").rglob("*") if p.is_file()}
        temp = tmp_path_factory.mktemp("tempdir")
        with pytest.MonkeyPatch.context() as in_temp:  # where the grader and its processes keep scratch courses
            in_temp.setenv("TMPDIR", str(temp))
            in_temp.setattr(tempfile, "tempdir", str(temp))
            run["autograde"] = cli("autograde", CHAPTER, "--workers", "2", "--cell-timeout", "20",
                                   "--notebook-timeout", "150", "--memory-mb", "2048", "--output-bytes", "100000")
        run["left_in_tempdir"] = sorted(p.name for p in temp.iterdir())
        run["feedback"] = cli("feedback", CHAPTER, "--student", "alice", "--student", "allclose")
        run["export"] = cli("export", "--out", str(root / "grades.csv"))
        yield {"root": root, "run": run, "hashes": hashes, "rows": summary_rows(root),
               "parts": part_grades(f"sqlite:///{root / 'gradebook.db'}")}
    finally:
        mp.undo()


def test_there_are_at_least_fifteen_hostile_kinds():
    assert len(HOSTILE_KINDS) >= 15


@pytest.mark.slow
def test_release_writes_a_student_bundle_without_solutions(graded_course):
    from grading import MARKERS, secret_lines, squash

    status, out, _ = graded_course["run"]["release"]
    assert status == 0 and "no solutions or hidden tests" in out
    with zipfile.ZipFile(graded_course["root"] / "dist" / "students.zip") as zf:
        assert sorted(zf.namelist()) == ["attnlab-exercises/02-scaled-attention/exercises.ipynb", "attnlab-exercises/README.txt"]
        text = zf.read(f"attnlab-exercises/{CHAPTER}/exercises.ipynb").decode("utf-8")
    assert not any(m in text for m in MARKERS)
    flat = squash(text.replace("\\n", "\n").replace('\\"', '"'))
    assert not [s for s in secret_lines(CHAPTER) if s in flat]
    assert text == (ROOT / "chapters" / CHAPTER / "exercises.ipynb").read_text(encoding="utf-8")


@pytest.mark.slow
def test_collect_files_each_student_and_reports_unmatched_files(graded_course):
    status, out, _ = graded_course["run"]["collect"]
    assert status == 0
    assert "not collected: lms-download/submissions/README.txt: not a notebook" in out
    assert "not collected: lms-download/submissions/nostudentid.ipynb: no student id in the name" in out
    assert f"{len(EXPECTED)} students collected into submitted/, 2 files unmatched" in out
    submitted = graded_course["root"] / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == sorted(EXPECTED)
    assert (submitted / "renamed" / CHAPTER / "homework.ipynb").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("student", list(EXPECTED))
def test_submission_gets_its_exact_outcome(graded_course, student):
    if student in CONFINED and sandbox.landlock_abi() < 6:
        pytest.skip("needs Linux Landlock ABI 6 (Linux 6.12 or later)")
    status, score, text = EXPECTED[student]
    row = graded_course["rows"][student]
    assert row["status"] == status, row
    if score is not None:
        assert float(row["score"]) == score, row
    if status == "invalid":
        assert row["score"] == "" and student not in graded_course["parts"]
    assert text in row["reasons"] + row["notes"], row


@pytest.mark.slow
def test_tampering_zeroes_later_tests_and_waits_for_manual_review(graded_course):
    parts = graded_course["parts"]
    for student in ("allclose", "assertclose"):
        assert all(score == 0 and manual for score, manual in parts[student].values()), student
    for student in ("npallclose", "refpatch"):
        assert parts[student]["test_raw_scores"] == (1.0, False)
        assert parts[student]["test_softmax_backward"] == (2.0, False)
        later = {g: v for g, v in parts[student].items() if g not in ("test_raw_scores", "test_softmax_backward")}
        assert later and all(v == (0.0, True) for v in later.values()), student
    assert "flagged" in graded_course["run"]["autograde"][1]


@pytest.mark.slow
def test_a_dead_or_stopped_kernel_keeps_the_points_earned_before(graded_course):
    for student in ("osexit", "swallow"):
        parts = graded_course["parts"][student]
        assert parts["test_raw_scores"][0] == 1 and parts["test_softmax_backward"][0] == 2
        assert parts["test_causal_mask"] == (0.0, False)
    slow = graded_course["rows"]["slow"]
    assert float(slow["score"]) < 16 and "not run: " in slow["reasons"]


@pytest.mark.slow
def test_grading_removes_its_scratch_courses(graded_course):
    left = [name for name in graded_course["run"]["left_in_tempdir"] if name.startswith("attnlab-grade-")]
    assert not left, f"scratch courses left behind: {left}"


@pytest.mark.slow
def test_every_student_gets_a_score_or_a_reason(graded_course):
    status, out, _ = graded_course["run"]["autograde"]
    assert status == 0
    for student, row in graded_course["rows"].items():
        assert row["score"] != "" or row["reasons"], student
        assert any(line.startswith(student) for line in out.splitlines()), student
    assert f"({len(EXPECTED)} students)" in out


@pytest.mark.slow
def test_submitted_files_are_byte_identical_after_grading(graded_course):
    for path, digest in graded_course["hashes"].items():
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest, path


@pytest.mark.slow
@needs_landlock
def test_writes_to_the_gradebook_and_a_neighbour_are_blocked(graded_course):
    root = graded_course["root"]
    autograded = root / "autograded"
    for student in ("gradebook", "neighbour"):
        printed = _printed(autograded / student / CHAPTER / "exercises.ipynb", "mc_answers")
        assert sum(printed.count(f"blocked [Errno {n}]") for n in (2, 13, 30)) == 2, printed  # absent, refused, read-only
    assert graded_course["parts"]["alice"]["test_masked_attention"] == (3.0, False)
    assert (root / "gradebook.db").stat().st_size > 0


@pytest.mark.slow
@needs_landlock
def test_the_answer_key_cannot_be_read_while_grading(graded_course):
    printed = _printed(graded_course["root"] / "autograded" / "steal" / CHAPTER / "exercises.ipynb", "mc_answers")
    assert sum(printed.count(f"blocked [Errno {n}]") for n in (2, 13, 30)) == 2, printed  # absent, refused, read-only


@pytest.mark.slow
def test_output_is_capped_in_the_autograded_notebook(graded_course):
    flood = graded_course["root"] / "autograded" / "flood" / CHAPTER / "exercises.ipynb"
    assert flood.stat().st_size < 300_000
    assert "[output truncated: more than 100000 bytes]" in flood.read_text(encoding="utf-8")


@pytest.mark.slow
def test_feedback_and_export_cover_the_graded_students(graded_course):
    root = graded_course["root"]
    status, out, _ = graded_course["run"]["feedback"]
    assert status == 0
    for student in ("alice", "allclose"):
        html = root / "feedback" / student / CHAPTER / "exercises.html"
        assert html.is_file() and f"feedback/{student}/" in out
    assert "NotGraded" in (root / "feedback" / "allclose" / CHAPTER / "exercises.html").read_text(encoding="utf-8")
    status, _, _ = graded_course["run"]["export"]
    import csv

    with (root / "grades.csv").open(encoding="utf-8") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    assert float(rows["alice"]["score"]) == 16 and float(rows["bob"]["score"]) == 0
    assert float(rows["allclose"]["score"]) == 0 and float(rows["renamed"]["score"]) == 16


# --------------------------------------------------------------------------- fast checks, no nbgrader run

@pytest.mark.parametrize("code, expected", [
    ("torch.allclose = lambda *a, **k: True", "assigns to torch.allclose"),
    ("import numpy as np\nnp.allclose = None", "assigns to np.allclose"),
    ("import torch.testing as tt\ntt.assert_close = print", "assigns to tt.assert_close"),
    ("import builtins\nbuiltins.isinstance = lambda *a: True", "assigns to builtins.isinstance"),
    ("setattr(torch, 'equal', None)", "calls setattr(torch, ...)"),
    ("_REF['exp'] = None", "assigns to _REF['exp']"),
    ("def _ref_softmax(x, mask=None):\n    return x", "redefines _ref_softmax, which the tests use"),
    ("isinstance = lambda *a: True", "redefines the builtin isinstance, which the tests use"),
    ("def assert_close(*a, **k):\n    pass", "defines an assertion helper named assert_close"),
    ("def f():\n    torch.testing.assert_close = None", "assigns to torch.testing.assert_close"),
])
def test_static_scan_names_the_patch(code, expected):
    found = guard.static_findings("cell", code, {"_REF", "_ref_softmax"}, {"isinstance", "len"})
    assert any(expected in f for f in found), found


def test_static_scan_accepts_ordinary_answers():
    for chapter in ("01-rnn-motivation", "02-scaled-attention", "03-multi-head", "04-positional-encoding",
                    "05-encoder-decoder"):
        for gid, code in solution_code(chapter).items():
            assert guard.static_findings(gid, code, {"_REF"}, {"isinstance", "len", "float"}) == [], (chapter, gid)
    ordinary = ("import torch\nimport numpy as np\nfrom torch import allclose\nx = torch.zeros(3)\nx[0] = 1\n"
                "for _ in range(2):\n    pass\n")
    assert guard.static_findings("c", ordinary, {"_REF"}, {"isinstance"}) == []


REBINDINGS = {
    "for": "for (_tensor, y) in [(1, 2)]:\n    pass",
    "with": "with open('f') as _tensor:\n    pass",
    "except": "try:\n    pass\nexcept Exception as _tensor:\n    pass",
    "walrus": "[(_tensor := 1) for i in range(2)]",
    "global": "def f():\n    global _tensor\n    _tensor = 1",
    "match": "match 1:\n    case _tensor:\n        pass",
    "flufl": "x = 1 <> 2\n_tensor = 1",  # parses only after `from __future__ import barry_as_FLUFL`
    "time": "%time _tensor = 1",
}


@pytest.mark.parametrize("form", list(REBINDINGS))
def test_static_scan_sees_every_form_of_binding_a_helper(form):
    assert any("redefines _tensor" in f for f in guard.static_findings("c", REBINDINGS[form], {"_tensor"}, set()))


def test_static_scan_leaves_local_names_and_harmless_magics_alone():
    local = "def f(x):\n    len = 3\n    _tensor = 2\n    return [isinstance for isinstance in range(2)]\nclass A:\n    _tensor = 1"
    assert guard.static_findings("c", local, {"_tensor"}, {"len", "isinstance"}) == []
    assert guard.static_findings("c", "%matplotlib inline\n%timeit -n 3 sum(range(4))", set(), set()) == []
    assert guard.static_findings("c", "%%time\nimport sys\nsys._getframe()", set(), set())  # the code a magic runs
    assert guard.static_findings("c", "%run other.py", set(), set())                         # other magics
    # help left in an answer runs no code; on the grader's own helpers it is a look inside
    assert guard.static_findings("c", "torch.topk?\n?torch.softmax\ntorch.cat??\n%pdef torch.cat\n%whos", set(), set()) == []
    for peek in ("_tensor?", "torch._C??", "f.__globals__?", "%psource _tensor"):
        assert guard.static_findings("c", peek, {"_tensor"}, set()), peek
    deep = guard.static_findings("c", "z = " + "1+" * 200_000 + "1", set(), set())
    assert deep and "nested too deeply" in deep[0]
    # IPython's transform costs (lines of IPython syntax) x (length): such a cell is flagged, not transformed
    costly = "\n".join(f"x{i} = {i}" for i in range(10_000)) + "\n" + "%time y = 1\n" * 300
    assert guard.ipython_work(costly) > guard.IPYTHON_WORK_LIMIT
    assert "too long for this check to read it" in guard.static_findings("c", costly, set(), set())[0]
    assert unrun_shell(costly + "!pip install torch\n") == (costly + "!pip install torch\n", [])


def test_invalid_files_get_a_reason(tmp_path):
    cases = {"empty.ipynb": (b"", "is empty"), "half.ipynb": (b'{"cells": [', "is not valid JSON"),
             "bytes.ipynb": (b'{"a": "\xff"}', "is not UTF-8 text (byte 0xff at offset 7)"),
             "list.ipynb": (b"[1, 2]", "is not a Jupyter notebook")}
    for name, (data, reason) in cases.items():
        (tmp_path / name).write_bytes(data)
        assert reason in (check_notebook(tmp_path / name) or ""), name
    assert check_notebook(write_submission(CHAPTER, tmp_path / "ok.ipynb")) is None


@needs_landlock
def test_sandbox_allows_writes_only_below_its_folder(tmp_path):
    inside = tmp_path / "inside"
    inside.mkdir()
    code = (
        "import os, sys\n"
        "from attnlab.instructor.sandbox import confine_writes\n"
        f"confine_writes([{str(inside)!r}], ['/dev/null'])\n"
        f"open({str(inside / 'ok')!r}, 'w').write('x')\n"
        "for path in sys.argv[1:]:\n"
        "    try:\n        open(path, 'w'); print('wrote', path)\n"
        "    except PermissionError:\n        print('blocked', path)\n"
        "try:\n    os.kill(os.getppid(), 0); print('signalled')\nexcept PermissionError:\n    print('no signal')\n"
    )
    outside = [str(tmp_path / "outside"), str(ROOT / "attnlab-sandbox-probe")]
    proc = subprocess.run([sys.executable, "-c", code, *outside], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:3] == [f"blocked {outside[0]}", f"blocked {outside[1]}", "no signal"]
    assert (inside / "ok").read_text() == "x" and not (tmp_path / "outside").exists()


def _tree_above_a_course(tmp_path):
    """A folder that holds the course (a PYTHONPATH entry or /opt above it, say), another folder, a link to the
    course and a link that loops."""
    top = tmp_path / "top"
    (top / "course" / "source").mkdir(parents=True)
    (top / "course" / "source" / "key.txt").write_text("answer key")
    (top / "lib" / "pkg").mkdir(parents=True)
    (top / "lib" / "pkg" / "mod.py").write_text("x = 1")
    (top / "notes.txt").write_text("notes")
    (top / "lib" / "to_course").symlink_to(top / "course")
    (top / "lib" / "loop").symlink_to(top)
    return top


def test_a_readable_folder_that_holds_the_course_is_carved_around_it(tmp_path):
    from attnlab.instructor.sandbox import readable_without

    top = _tree_above_a_course(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    got = readable_without([str(top), str(other), str(tmp_path / "missing")], [str(top / "course")])
    # Landlock checks the real path: a link inside "lib" to the course leaves "lib" whole (the other test)
    assert sorted(got) == sorted([str(top / "lib"), str(top / "notes.txt"), str(other)])
    assert readable_without([str(top / "course")], [str(top / "course")]) == []
    # a virtual environment inside the checkout stays readable (python_folders chose it), and so does a folder
    # below the course that python_folders listed
    venv = top / "course" / ".venv"
    venv.mkdir()
    assert readable_without([str(venv), str(top / "course" / "source")], [str(top / "course")]) == sorted(
        [str(venv), str(top / "course" / "source")], key=len)
    # ... also when a link in a carved folder leads to it first
    (top / "lib" / "pkg" / "to_venv").symlink_to(venv)
    (top / "link_to_venv").symlink_to(venv)
    assert str(venv) in readable_without([str(top), str(venv)], [str(top / "course")])
    assert readable_without([str(other)], [str(top / "course")]) == [str(other)]


@needs_landlock
def test_under_landlock_the_course_stays_unreadable_below_a_readable_folder(tmp_path):
    """The Landlock fallback's reads: a Python folder that holds the course (here a PYTHONPATH entry) must not open
    the answer key to the kernel, directly or through a link; the rest of that folder stays readable."""
    top = _tree_above_a_course(tmp_path)
    inside = tmp_path / "work"
    inside.mkdir()
    course = top / "course"
    code = (
        "import sys\n"
        "from attnlab.instructor.sandbox import confine_writes, readable_without, python_folders\n"
        f"hidden = [{str(course)!r}]\n"
        f"confine_writes([{str(inside)!r}], ['/dev/null'], readable_without([*python_folders(hidden), {str(top)!r}], hidden))\n"
        "for path in sys.argv[1:]:\n"
        "    try:\n        open(path).read(); print('read', path)\n"
        "    except PermissionError:\n        print('blocked', path)\n"
    )
    paths = [str(course / "source" / "key.txt"), str(top / "lib" / "to_course" / "source" / "key.txt"),
             str(top / "lib" / "pkg" / "mod.py"), str(top / "notes.txt")]
    proc = subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:4] == [f"blocked {paths[0]}", f"blocked {paths[1]}", f"read {paths[2]}",
                                           f"read {paths[3]}"]


def test_kernel_env_drops_secrets_and_takes_its_share_of_threads(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_GRADEBOOK_URL", "postgresql://secret")
    monkeypatch.setenv("OMP_NUM_THREADS", "8")
    env = sandbox.kernel_env({"unset_env": ["ATTNLAB_GRADEBOOK_URL"], "threads": 1}, tmp_path)
    assert "ATTNLAB_GRADEBOOK_URL" not in env and env["HOME"] == env["TMPDIR"] == str(tmp_path)
    assert all(env[name] == "1" for name in sandbox.THREAD_ENV)
    assert sandbox.kernel_env({}, tmp_path)["OMP_NUM_THREADS"] == "8"  # no share given: left as it is


def test_kernel_bootstrap_keeps_assert_close_from_importing_dtensor():
    """torch.testing.assert_close looks for DTensors on its first call, which imports
    torch.distributed.tensor and sympy: about a second in each of the suite's hundreds of grading
    kernels. The kernel's bootstrap turns that look off; assert_close still finds a difference."""
    head = sandbox.BOOTSTRAP.split("sys.argv = ")[0] % ([], sandbox.NO_COURSE_PACKAGE, sandbox.installed_folders([], []))
    check = head + (
        "import torch\n"
        "torch.testing.assert_close(torch.ones(3), torch.ones(3))\n"
        "try:\n"
        "    torch.testing.assert_close(torch.ones(3), torch.zeros(3))\n"
        "    caught = False\n"
        "except AssertionError:\n"
        "    caught = True\n"
        "print(caught, 'sympy' in sys.modules, 'torch.distributed.tensor' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-I", "-c", check], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "False", "False"]
    # without the bootstrap the first call does import them: the check above measures something
    plain = subprocess.run([sys.executable, "-I", "-c", "import sys, torch\n" + check.split("import torch\n", 1)[1]],
                           capture_output=True, text=True, timeout=120)
    assert plain.stdout.split() == ["True", "True", "True"], plain.stderr


def test_kernel_bootstrap_imports_only_installed_modules_and_resolves_each_installed_folder_once(tmp_path):
    """The bootstrap's finder refuses a module whose real file lies outside the installed folders (red team 15), a
    link out of one included; it keeps each installed folder's real path, so that a module costs one lstat."""
    site, outside = tmp_path / "site", tmp_path / "outside"
    (site / "pkg").mkdir(parents=True)
    outside.mkdir()
    (site / "pkg" / "__init__.py").write_text("")
    (site / "pkg" / "inside.py").write_text("X = 1\n")
    (outside / "spy.py").write_text("X = 2\n")
    (outside / "spypkg").mkdir()
    (outside / "spypkg" / "__init__.py").write_text("")
    os.symlink(outside / "spy.py", site / "pkg" / "linked.py")       # a file link out of the installed folder
    os.symlink(site / "pkg" / "inside.py", site / "pkg" / "alias.py")  # a file link inside it
    os.symlink(outside / "spypkg", site / "spypkg")                   # a package folder linked from outside
    (site / "pkg" / "many").mkdir()
    for i in range(30):
        (site / "pkg" / "many" / f"m{i}.py").write_text(f"X = {i}\n")
    (site / "pkg" / "many" / "__init__.py").write_text("")
    roots = [*sandbox.installed_folders([], []), str(site)]
    head = sandbox.BOOTSTRAP.split("sys.argv = ")[0] % ([str(site)], sandbox.NO_COURSE_PACKAGE, roots)
    check = head + (
        "import os, posixpath\n"
        "finder = next(f for f in sys.meta_path if hasattr(f, 'installed'))\n"
        "def outcome(name):\n"
        "    try:\n"
        "        return __import__(name, fromlist=['X']).X\n"
        "    except ModuleNotFoundError as err:\n"
        "        return 'refused' if 'not part of the Python installation' in str(err) else repr(err)\n"
        "print(outcome('pkg.inside'), outcome('pkg.alias'), outcome('pkg.linked'), outcome('spypkg'))\n"
        "calls, real = [], posixpath.realpath\n"
        "finder.real = staticmethod(lambda p: calls.append(p) or real(p))\n"
        "print(sum(outcome(f'pkg.many.m{i}') for i in range(30)), len(calls))\n")
    proc = subprocess.run([sys.executable, "-I", "-c", check], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1", "1", "refused", "refused", str(sum(range(30))), "1"], proc.stdout + proc.stderr


def test_autograde_before_release_is_a_clear_error(tmp_path, monkeypatch):
    root = copy_course(tmp_path / "course")
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    monkeypatch.delenv("ATTNLAB_GRADEBOOK_URL", raising=False)
    status, _, err = cli("autograde", CHAPTER)
    assert status == 1 and f"run `attnlab-course release {CHAPTER}` first" in err
    status, _, err = cli("autograde", CHAPTER, "--workers", "0")
    assert status == 2 and "--workers must be at least 1" in err
    status, _, err = cli("collect", CHAPTER, str(tmp_path / "nothing.zip"))
    assert status == 1 and "no such file or folder" in err


def test_runtime_guard_reports_what_changed(monkeypatch):
    import numpy
    import torch

    def probe():  # the fingerprint the grader takes in the kernel, here taken in this process
        return guard.read_probe(repr(eval(guard.probe_expression("n", detail=None), {"__attnlab_kernel__": None})),
                               "n")["detail"]

    before = probe()
    torch.manual_seed(0)
    torch.nn.functional.softmax(torch.ones(3), dim=-1)  # ordinary use changes nothing
    assert guard.compare(before, probe()) == []
    monkeypatch.setattr(torch, "allclose", lambda *a, **k: True)
    monkeypatch.setattr(torch.testing, "assert_close", lambda *a, **k: None)
    monkeypatch.setattr(numpy, "allclose", lambda *a, **k: True)
    monkeypatch.setattr(torch.Tensor, "all", lambda self, *a, **k: True, raising=False)
    assert sorted(guard.describe(g, k) for g, k in guard.compare(before, probe())) == [
        "numpy.allclose", "torch.Tensor.all", "torch.allclose", "torch.testing.assert_close"]


def test_the_notebook_to_grade_is_found_or_explained(tmp_path):
    from attnlab.instructor.grading import find_notebook

    folder = tmp_path / "student"
    folder.mkdir()
    assert find_notebook(folder) == (None, f"no exercises.ipynb in {folder}")
    (folder / "mine.ipynb").write_text("{}")
    assert find_notebook(folder) == (folder / "mine.ipynb", "graded mine.ipynb as exercises.ipynb (the notebook was renamed)")
    (folder / "other.ipynb").write_text("{}")
    path, why = find_notebook(folder)
    assert path is None and "several other notebooks (mine.ipynb, other.ipynb)" in why
    (folder / "exercises.ipynb").write_text("{}")
    assert find_notebook(folder) == (folder / "exercises.ipynb", "")


@pytest.mark.parametrize("pattern, expected", [
    ("[", "is not a valid regular expression"),
    (r".*/(?P<student>[^/_]+)_(?P<file_id>.+)$", "has no group named student_id"),
    (r".*/([^/_]+)_(.+)$", "has no group named student_id or file_id"),
])
def test_collect_rejects_a_bad_pattern_with_advice(tmp_path, monkeypatch, pattern, expected):
    root = copy_course(tmp_path / "course")
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    status, out, err = cli("collect", CHAPTER, str(tmp_path), "--pattern", pattern)
    assert status == 2 and expected in err and "(?P<student_id>" in err, err
    assert "Traceback" not in out + err and not (root / "downloaded").exists()


def test_autograde_report_keeps_the_students_not_graded_again(tmp_path):
    from attnlab.instructor.grading import Result
    from attnlab.instructor.workflow import write_report

    report = tmp_path / "reports" / f"autograde-{CHAPTER}.csv"
    write_report(report, [Result("bob", "graded", 3, 16), Result("carol", "invalid", reasons=["carol.ipynb is empty"])])
    write_report(report, [Result("bob", "flagged", 5, 16, reasons=["the kernel died"])])
    rows = summary_rows(tmp_path)
    assert sorted(rows) == ["bob", "carol"]
    assert (rows["bob"]["status"], rows["bob"]["score"], rows["bob"]["reasons"]) == ("flagged", "5", "the kernel died")
    assert rows["carol"]["status"] == "invalid" and rows["carol"]["reasons"] == "carol.ipynb is empty"


def test_invalid_notebooks_say_what_to_ask_the_student_for(tmp_path):
    for name, data in {"half.ipynb": b'{"cells": [', "list.ipynb": b"[1, 2]"}.items():
        (tmp_path / name).write_bytes(data)
        assert "download the notebook from Jupyter (File \u2192 Download) and submit it again" in check_notebook(
            tmp_path / name), name


def test_export_writes_at_the_course_root_by_default(tmp_path, monkeypatch):
    root = copy_course(tmp_path / "course")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    monkeypatch.delenv("ATTNLAB_GRADEBOOK_URL", raising=False)
    monkeypatch.chdir(elsewhere)
    status, out, err = cli("export")
    assert status == 0, err
    assert (root / "grades.csv").is_file() and not (elsewhere / "grades.csv").exists()
    status, _, err = cli("export", "--out", "mine.csv")  # an explicit --out is relative to the current folder
    assert status == 0 and (elsewhere / "mine.csv").is_file(), err


@pytest.mark.slow
def test_release_zip_holds_every_chapter_released_so_far(tmp_path, monkeypatch):
    other = "01-rnn-motivation"
    root = copy_course(tmp_path / "course", (other, CHAPTER))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    monkeypatch.delenv("ATTNLAB_GRADEBOOK_URL", raising=False)
    monkeypatch.chdir(elsewhere)  # default outputs go to the course root, wherever the command runs
    status, out, err = cli("release", other)
    assert status == 0 and f"(1 student notebook: every chapter released so far, {other};" in out, out + err
    status, out, err = cli("release", CHAPTER)
    assert status == 0 and f"(2 student notebooks: every chapter released so far, {other}, {CHAPTER};" in out, out + err
    with zipfile.ZipFile(root / "dist" / "attnlab-released.zip") as zf:
        assert sorted(zf.namelist()) == sorted(["attnlab-exercises/README.txt", f"attnlab-exercises/{other}/exercises.ipynb",
                                                f"attnlab-exercises/{CHAPTER}/exercises.ipynb"])
    assert not (root / "dist" / "attnlab-exercises.zip").exists()  # the full bundle is `bundle`'s, untouched
    assert not (elsewhere / "dist").exists()


@pytest.mark.slow
def test_the_library_rule_costs_only_the_part_that_breaks_it(graded_course):
    root = graded_course["root"]
    for student, lost in (("numpy", "test_causal_mask"), ("addednumpy", "test_raw_scores")):
        parts = graded_course["parts"][student]
        assert parts[lost] == (0.0, False), student
        assert all(score > 0 for gid, (score, _) in parts.items() if gid != lost), (student, parts)
        graded = root / "autograded" / student / CHAPTER / "exercises.ipynb"
        nb = json.loads(graded.read_text(encoding="utf-8"))
        cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == lost)
        first = cell["outputs"][0]
        assert first["output_type"] == "error" and first["ename"] == "LibraryRule", cell["outputs"]
        assert "the exercises use only `torch` and Python's standard library" in first["evalue"]


@pytest.mark.slow
def test_text_on_stderr_in_a_test_cell_is_kept_and_costs_nothing(graded_course):
    printed = _printed(graded_course["root"] / "autograded" / "chatty" / CHAPTER / "exercises.ipynb", "test_raw_scores")
    assert "debug" in printed and "shapes: " in printed
    assert graded_course["parts"]["chatty"]["test_raw_scores"] == (1.0, False)


@pytest.mark.slow
def test_released_order_and_metadata_are_restored_before_grading(graded_course):
    notes = graded_course["rows"]["careless"]["notes"]
    assert "cell grading_helpers was deleted; the released one was put back" in notes
    assert "carries nbgrader metadata that stands for no cell of the assignment" in notes
    assert "the cells were not in the released order" in graded_course["rows"]["movedhelpers"]["notes"]
    assert graded_course["rows"]["careless"]["reasons"] == ""  # %time and `torch.einsum?` are not hooks
    assert ("a cell the student added ('!pip install torch'): '!pip install torch' was not run: the grader runs the answers with the "
            "course's packages, without shell commands or IPython set-up") in notes
    assert "'%pip install numpy' was not run" in notes and "'%load_ext autoreload' was not run" in notes
    assert "'files = !ls' was not run" in notes  # an empty list is assigned: nothing flagged (reasons above)
    graded = graded_course["root"] / "autograded" / "careless" / CHAPTER / "exercises.ipynb"
    cell = next(c for c in json.loads(graded.read_text(encoding="utf-8"))["cells"] if c.get("id") == "odd")
    assert "".join(cell["source"]).startswith("pass  # not run when graded: !pip install torch\n")


@pytest.mark.slow
def test_a_students_control_characters_never_reach_the_terminal_or_the_reports(graded_course):
    """Red team 16, F5: termspoof's `!pip` line erases the summary line and prints 16/16 for a 15/16 notebook;
    the note quotes it with repr, and every line printed or written shows control characters as escapes."""
    status, out, _ = graded_course["run"]["autograde"]
    line = next(l for l in out.splitlines() if l.startswith("termspoof "))
    assert "\x1b" not in out and "\u202e" not in out
    assert "15/16" in line and "'!pip install torch\\x1b[2K\\x1b[1Gtermspoof" in line and "\\u202e'" in line
    report = (graded_course["root"] / "reports" / f"autograde-{CHAPTER}.csv").read_text(encoding="utf-8")
    grades = (graded_course["root"] / "grades.csv").read_text(encoding="utf-8")
    assert not any(ch in report + grades for ch in "\x1b\u202e")


@pytest.mark.slow
def test_a_value_shown_in_a_test_cell_is_not_a_score(graded_course):
    parts = graded_course["parts"]["showvalue"]
    assert parts["test_raw_scores"] == (0.0, False)            # wrong, though its test cell showed 'ok'
    assert parts["test_causal_mask"] == (2.0, False)           # right, though it showed 100 and wrote to stderr
    assert parts["test_softmax_backward"] == (2.0, False)     # its print ran past the output limit


def test_a_builtin_a_student_function_reads_or_declares_global_is_not_put_aside():
    """A scratch global shadowing a builtin is put aside while test cells run only if no student function
    could see it: one that reads the name, or declares it global and could bind it again during a test."""
    assert guard.builtins_used_by_functions(["max = scores.max()\nprint(max)"]) == set()
    assert "max" in guard.builtins_used_by_functions(["max = 3\ndef f(x):\n    return max(x)"])
    assert "isinstance" in guard.builtins_used_by_functions(["def f():\n    global isinstance\n    isinstance = print"])
    assert "len" not in guard.builtins_used_by_functions(["def f(x, len=3):\n    return len"])
    # nested scopes count with the scope that encloses them, each read once (2000 nested lambdas were quadratic)
    assert "max" in guard.builtins_used_by_functions(["def f():\n    def g():\n        return max(1)\n    return g"])
    assert "min" in guard.builtins_used_by_functions(["f = " + "lambda x: " * 900 + "min(x)"])
    assert "sum" in guard.builtins_used_by_functions(["class A:\n    def m(self):\n        global sum"])


def test_a_cell_added_among_the_setup_cells_runs_after_them():
    """Red team 15: a cell added between the notebook's setup and its tests' helpers ran before the helpers were
    defined, and changed what they captured (a comparison that always agreed); it now runs just before the first
    answer, and the notes say so. An added cell that already stood there is left in place, with no note."""
    from attnlab.instructor.submission import released_order

    def cell(gid, **meta):
        return {"cell_type": "code", "id": gid, "source": gid, "metadata": {"nbgrader": {"grade_id": gid, **meta}},
                "outputs": [], "execution_count": None}

    released = [cell("setup", locked=True), cell("grading_helpers", locked=True),
                cell("a1", solution=True), cell("t1", grade=True, locked=True, points=1)]
    added = {"cell_type": "code", "id": "mine", "source": "x = 1", "metadata": {}, "outputs": [], "execution_count": None}
    submitted = {"cells": [released[0], added, *released[1:]]}
    nb, notes = released_order(submitted, {"cells": released})
    assert [c["id"] for c in nb["cells"]] == ["setup", "grading_helpers", "mine", "a1", "t1"]
    assert notes == ["cells added before the first answer were run just before it, after the notebook's setup cells"]
    in_place = {"cells": [*released[:2], added, *released[2:]]}
    assert released_order(in_place, {"cells": released}) == (in_place, [])
    later = {"cells": [*released[:3], added, *released[3:]]}  # after an answer, before its test: kept there
    assert released_order(later, {"cells": released}) == (later, [])


@pytest.mark.parametrize("cell_type", ["markdown", "raw"])
def test_an_assigned_cell_gets_its_released_type_back_before_anything_reads_it(tmp_path, cell_type, monkeypatch):
    """Red team 16, F3: an answer cell saved as Markdown or raw text was skipped by the static scan and the library
    rule (they read code cells) and run as code by nbgrader. repair_file, which runs before every reader, gives it
    the released type back (a code cell without outputs), keeps its text and notes the change."""
    from attnlab.instructor.submission import repair_file

    monkeypatch.setenv("ATTNLAB_TEST_SCRATCH", str(tmp_path))
    released = ROOT / "chapters" / CHAPTER / "exercises.ipynb"
    path = tmp_path / "sub.ipynb"

    def attachment(nb):
        _cell_type("causal_mask", cell_type)(nb)
        _cell_type("test_raw_scores", cell_type)(nb)
        cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "causal_mask")
        cell["attachments"] = {"x.png": {"image/png": "iVBORw0KGgo="}}
    path.write_bytes(_notebook({"causal_mask": SWAP_GLOBALS}, edit=attachment))
    notes = repair_file(path, released)
    assert f"changed nbgrader metadata: cell causal_mask was turned into a {cell_type} cell (the assignment's is " \
           "code; it was graded as one)" in notes
    nb = json.loads(path.read_text(encoding="utf-8"))
    for gid in ("causal_mask", "test_raw_scores"):
        cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == gid)
        assert cell["cell_type"] == "code" and cell["outputs"] == [] and cell["execution_count"] is None
        assert "attachments" not in cell
    answer = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "causal_mask")
    assert "".join(answer["source"]) == SWAP_GLOBALS
    import nbformat

    nbformat.validate(nbformat.from_dict(nb))
    # what the scan reads is now the answer: the same cell, as code, is flagged
    code = [c.source for c in nbformat.from_dict(nb).cells if c.cell_type == "code"
            and c.metadata.get("nbgrader", {}).get("grade_id") == "causal_mask"]
    assert any("uses globals" in f for f in guard.static_findings("causal_mask", code[0], {"_close", "_equal"}, set()))
