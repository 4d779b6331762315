"""Hooks into the grading kernel, reading the grader's files, and kernel crashes (issue 17, points 2-3; issue 22).

Three layers, each tested on its own:

* the static scan (:func:`attnlab.instructor.guard.static_findings`) on snippets, and on every honest
  answer of all eight chapters (model answers and the mutant files' correct variants);
* the run-time guard alone: small notebooks run by :class:`HardenedExecute` in a plain kernel with
  no static findings, one hook (or introspection) per student cell, so each reason must come from
  the guard that runs in the kernel and is compared by this process;
* whole chapter-2 submissions through ``attnlab-course autograde``, graded once per module: the
  issue's exact attacks, reading the kernel's folder, cells that crash the kernel, a cell that stops
  slowly after the interrupt at its time limit. Expected points come from grading the model answer.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import json
import time
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from attnlab.instructor import guard
from attnlab.instructor.execute import (CONTEXT, KEPT_RUNNING, TEST_INTERRUPTED, HardenedExecute, StudentContext,
                                        crash_message, replaced_message)
from grading import ROOT, equal_to_anything, load, load_script, solution_code, write_submission
from instructor_course import CHAPTER, cli, copy_course, part_grades, summary_rows

CHAPTERS = sorted(p.name for p in (ROOT / "solutions").iterdir() if (p / "exercises.ipynb").is_file())


# --------------------------------------------------------------------------- the static scan

@functools.cache
def _grader_names(chapter: str) -> tuple[frozenset[str], frozenset[str]]:
    """(protected helper names, builtins the tests use) of a chapter, as grading computes them (once: a hundred
    static-scan cases read them)."""
    nb = load(ROOT / "solutions" / chapter / "exercises.ipynb")
    code = [c for c in nb["cells"] if c["cell_type"] == "code" and not c["metadata"].get("nbgrader", {}).get("solution")]
    tests = [c for c in code if c["metadata"].get("nbgrader", {}).get("grade")]
    return (frozenset(guard.defined_names(["".join(c["source"]) for c in code])),
            frozenset(guard.used_builtins(["".join(c["source"]) for c in tests])))


STATIC_CASES = {
    "input transformer": ("getattr(get_ipython(), 'input_transformers_' + 'post').append(lambda l: l)",
                          "uses get_ipython, which reaches the notebook's namespace or IPython itself"),
    "ast transformer": ("ip = get_ipython()\nip.ast_transformers.append(object())", "ast_transformers"),
    "getframe": ("import sys\ndef f():\n    return sys._getframe(1).f_locals", "reads stack frames or tracebacks (_getframe)"),
    "inspect": ("import inspect\nx = inspect.currentframe()", "reads stack frames or tracebacks (currentframe)"),
    "inspect stack": ("import inspect\nx = inspect.stack()", "uses inspect.stack, which looks into"),
    "traceback frame": ("try:\n    1 / 0\nexcept Exception as e:\n    f = e.__traceback__.tb_frame", "tb_frame"),
    "gc": ("import gc\nobjs = gc.get_objects()", "searches the interpreter's objects (get_objects)"),
    "gc under another name": ("import gc as g\nobjs = g.get_objects()", "imports gc as g"),
    "gc handed on": ("import gc\nm = gc", "hands on the module gc as a value"),
    "gc callbacks": ("import gc\ngc.callbacks.append(print)", "uses gc.callbacks"),
    "gc attribute": ("objs = __import__('gc').get_objects()", "searches the interpreter's objects (get_objects)"),
    "ctypes": ("import ctypes\nctypes.string_at(0)", "imports ctypes"),
    "globals": ("g = globals()", "uses globals"),
    "vars": ("v = vars()", "uses vars"),
    "setprofile": ("import sys\nsys.setprofile(None)", "installs or reads a hook into the interpreter, IPython or torch (setprofile)"),
    "settrace": ("import threading\nthreading.settrace(None)", "(settrace)"),
    "addaudithook": ("import sys\nsys.addaudithook(print)", "(addaudithook)"),
    "dynamic import": ("m = __import__('tor' + 'ch')", "calls __import__ with code or a name built at run time"),
    "import_module": ("import importlib\nm = importlib.import_module(name)", "calls import_module with code or a name"),
    "exec": ("exec(''.join(['x', '=1']))", "calls exec with code or a name built at run time"),
    "literal exec": ("exec('import ctypes')", "imports ctypes"),
    # red team 16: the namespace reached as an attribute, by a literal name, through code in a string that a
    # library evaluates, through exec text read under barry_as_FLUFL; the kernel's request read back
    "builtins.globals": ("import builtins\ng = builtins.globals()", "uses builtins.globals, which reaches"),
    "getattr of a namespace call": ("import builtins\nv = getattr(builtins, 'vars')()", "uses getattr(..., 'vars')"),
    "namespace by key": ("import builtins\nv = builtins.__dict__['globals']()", "looks up 'globals' by name"),
    "module dict": ("import builtins\nd = builtins.__dict__", "reads builtins.__dict__"),
    "annotation evaluated": ("import typing\ndef f(x: 'globals()'): pass\nns = typing.get_type_hints(f)['x']",
                             "holds code in a string that uses globals"),
    "timeit statement": ("import timeit\ntimeit.timeit('import __main__ as m; m.x = 1', number=1)",
                         "holds code in a string that imports __main__"),
    "exec under barry": ("from __future__ import barry_as_FLUFL\nexec('assert 1 <> 2\\ng = globals()')",
                         "uses globals"),
    "exec unreadable": ("exec('def (')", "calls exec with text this check cannot parse"),
    "compile flags": ("c = compile('x = 1', 'f', 'exec', 0x1000000)", "calls compile with flags"),
    "kernel request": ("c = get_ipython().kernel.get_parent('shell')['content']['code']",
                       "reads the kernel's request (get_parent)"),
    "pdb used": ("import pdb\npdb.set_trace()", "uses pdb.set_trace"),
    "IPython beyond display": ("import IPython\nip = IPython.get_ipython()", "uses IPython.get_ipython"),
    "vars of a module": ("import builtins\nv = vars(builtins)", "uses vars"),
    "locals at the top": ("l = locals()", "uses locals"),
    "exec handed on": ("run = exec\nrun(text)", "hands on exec as a value"),
    "signal by a call": ("sig = __import__('signal')", "imports signal"),
    "inspect by a call": ("import importlib\nm = importlib.import_module('inspect')", "imports inspect"),
    "signal through another module": ("import subprocess\nsubprocess.signal.setitimer(0, 0.005)", "(setitimer)"),
    "sys handed on": ("import sys\ns = sys\nm = vars(s)['modules']", "hands on the module sys as a value"),
    "getattr built": ("import sys\nf = getattr(sys, '_get' + 'frame')", "uses getattr(..., '_getframe') with the name built"),
    "getattr computed": ("import sys\nf = getattr(sys, name)", "calls getattr on sys with a name built at run time"),
    "getattr literal": ("import sys\nf = getattr(sys, '_getframe')", "uses getattr(..., '_getframe')"),
    "protected read": ("def raw_scores(q, k):\n    return _REF['einsum']('...d,...e->...de', q, k)", "reads _REF, a helper of the grader's tests"),
    "function code": ("def f():\n    pass\nf.__code__ = (lambda: 1).__code__", "(__code__)"),
    "closure": ("c = f.__closure__[0].cell_contents", "(__closure__)"),
    "function mode": ("from torch.overrides import TorchFunctionMode", "TorchFunctionMode"),
    "function modes off": ("with torch._C.DisableTorchFunction():\n    y = x.double()", "(DisableTorchFunction)"),
    "dispatch modes off": ("from torch.utils._python_dispatch import _disable_current_modes\n"
                           "with _disable_current_modes():\n    y = x @ x.T", "(_disable_current_modes)"),
    "dispatch off": ("with torch._C._DisableTorchDispatch():\n    y = x @ x.T", "(_DisableTorchDispatch)"),
    "magic line": ("%load_ext something", "get_ipython"),
    "shell line": ("!cat exercises.ipynb", "get_ipython"),
    "subclasses": ("x = ().__class__.__base__.__subclasses__()", "(__subclasses__)"),
    # the notebook's namespace, where a hidden test's reference lives while it calls the answer (white-box 8)
    "import __main__": ("import __main__\nf = __main__._ref_masked_attention", "imports __main__"),
    "__main__ by name": ("import sys\nm = sys.modules['__main__']", "names the module __main__"),
    "reference as attribute": ("f = m._ref_masked_attention", "reads _ref_masked_attention, a helper of the grader's"),
    "reference by name": ("import operator\nf = operator.attrgetter('_ref_masked_attention')(m)",
                          "names _ref_masked_attention, a helper of the grader's tests"),
    "pydoc": ("import pydoc\nf = pydoc.locate(name)", "imports pydoc"),
    "linecache": ("import linecache\nlines = linecache.cache", "imports linecache"),
    # white-box 9: the tests' references and source reached from an answer while a test calls it
    "globals in pieces": ("def f(q):\n    g = getattr(f, '__glob' + 'als__')", "with the name built from pieces"),
    "globals by f-string": ("g = getattr(f, f\"{'__glob'}als__\")", "with the name built from pieces"),
    "globals joined": ("g = getattr(f, ''.join(['__gl', 'obals__']))", "with the name built from pieces"),
    "attrgetter": ("import operator\ng = operator.attrgetter('x.__globals__')(f)", "attrgetter(... '__globals__'"),
    "getattribute": ("g = object.__getattribute__(f, '__globals__')", "__getattribute__(... '__globals__'"),
    "signal": ("import signal\nsignal.signal(signal.SIGALRM, h)", "imports signal"),
    "traceback linecache": ("import traceback\nc = traceback.linecache.cache", "(linecache)"),
    "stack source": ("import traceback\nlines = traceback.extract_stack()", "(extract_stack)"),
    "torch.library": ("lib = torch.library.Library('aten', 'IMPL')", "replaces torch's own operators"),
    # red team 27: torch.backends.mps imports the class as _Library
    "library_alias": ("lib = torch.backends.mps._Library('aten', 'IMPL')", "(_Library)"),
    "from torch import library": ("from torch import library", "imports torch.library"),
    "import torch.library": ("import torch.library as L", "imports torch.library"),
    "op py_impl": ("torch.ops.aten.isclose.default.py_impl(k)(f)", "(py_impl)"),
    # white-box 11: the test's dispatch-mode watch switched off inside the answer and back on before it returns
    # (no check between cells can see that), reference computations hooked or poisoned
    "pop mode temporarily": ("from torch.utils._python_dispatch import _pop_mode_temporarily\n"
                             "def raw_scores(q, k):\n    with _pop_mode_temporarily():\n        return q @ k.T",
                             "(_pop_mode_temporarily)"),
    "python key excluded": ("torch._C._dispatch_tls_set_dispatch_key_excluded(torch._C.DispatchKey.Python, True)",
                            "(_dispatch_tls_set_dispatch_key_excluded)"),
    "torch._C by a computed name": ("f = getattr(torch._C, name[::-1])",
                                    "calls getattr on torch._C with a name built at run time"),
    "torch._VF": ("vf = torch._VF\nvf.einsum = f", "(_VF)"),
    "saved tensor hooks": ("torch.autograd.graph.saved_tensors_hooks(pack, unpack).__enter__()",
                           "(saved_tensors_hooks)"),
    "global module hook": ("from torch.nn.modules.module import register_module_forward_hook",
                           "imports register_module_forward_hook"),
    # an answer's own globals (the tests' _REF) reached through a name read backwards, chr() or a decoding
    "globals reversed": ("def f(q):\n    table = getattr(f, '__slabolg__'[::-1])['FER_'[::-1]]",
                         "calls getattr with an attribute name disguised at run time"),
    "globals by chr": ("g = getattr(f, chr(95) * 2 + 'globals__')", "disguised at run time"),
    "attrgetter reversed": ("import operator\ng = operator.attrgetter(''.join(reversed('__slabolg__')))(f)",
                            "calls attrgetter with an attribute name disguised at run time"),
    "getattribute decoded": ("import base64\ng = object.__getattribute__(f, base64.b64decode(s).decode())",
                             "calls __getattribute__ with an attribute name disguised at run time"),
    "python dispatcher": ("g = torch._C._EnablePythonDispatcher()", "(_EnablePythonDispatcher)"),
    # red team 18 F2: the tests' own watch handed to the answer, which changes what the watch saw (its `ops`, its
    # `largest`) after using what the part forbids: every route to a mode object or to the module that hands one
    "dispatch mode read": ("from torch.utils._python_dispatch import _get_current_dispatch_mode as m\nvars(m())",
                           "(_get_current_dispatch_mode)"),
    "dispatch mode stack": ("s = torch.utils._python_dispatch._get_current_dispatch_mode_stack()",
                            "(_get_current_dispatch_mode_stack)"),
    "function mode read": ("w = torch.overrides._get_current_function_mode()", "(_get_current_function_mode)"),
    "mode stack by index": ("w = torch._C._get_dispatch_stack_at(torch._C._len_torch_dispatch_stack() - 1)",
                            "(_len_torch_dispatch_stack)"),
    "mode module imported": ("import torch.utils._python_dispatch as pd", "imports torch.utils._python_dispatch"),
    "mode module from utils": ("from torch.utils import _python_dispatch as pd\nw = getattr(pd, name)()",
                               "(_python_dispatch)"),
    "mode module by text": ("import sys\npd = sys.modules['torch.utils._python_dispatch']",
                            "names the module torch.utils._python_dispatch"),
    "torch module alias, computed name": ("import torch.overrides as ov\nw = getattr(ov, name)()",
                                          "calls getattr on ov with a name built at run time"),
    "python kernels": ("op.py_kernels[key] = f", "(py_kernels)"),
}


@pytest.mark.parametrize("case", list(STATIC_CASES))
def test_static_scan_flags_introspection_with_a_reason(case):
    source, expected = STATIC_CASES[case]
    protected, test_builtins = _grader_names(CHAPTER)
    assert "_REF" in protected  # the chapter's locked cell captures its references in _REF
    found = guard.static_findings("part", source, protected, test_builtins)
    assert any(expected in f and f.startswith("cell part, line ") for f in found), found


def test_the_graders_cells_are_parsed_once_and_each_caller_gets_a_set_of_its_own():
    """defined_names and used_builtins read the grader's cells, the same for every notebook of a chapter: parsed once
    per grading process, each call still gets a set it may change without changing the next call's."""
    sources = ["_a = 1\ndef _f(x):\n    return len(x)\nclass _K:\n    pass", "y = isinstance(_a, int)"]
    before = guard._defined_names.cache_info().hits, guard._used_builtins.cache_info().hits
    first, used = guard.defined_names(sources), guard.used_builtins(sources)
    assert first == {"_a", "_f", "_K"} and used == {"len", "isinstance", "int"}
    first.add("_intruder")
    used.discard("len")
    assert guard.defined_names(list(sources)) == {"_a", "_f", "_K"}
    assert guard.used_builtins(list(sources)) == {"len", "isinstance", "int"}
    assert (guard._defined_names.cache_info().hits, guard._used_builtins.cache_info().hits) == (before[0] + 1,
                                                                                                before[1] + 1)
    assert guard.defined_names(sources + ["_b = 2"]) == {"_a", "_f", "_K", "_b"}  # other cells: parsed again


def test_static_scan_keeps_ordinary_code_unflagged():
    protected, test_builtins = _grader_names(CHAPTER)
    ordinary = ("import math\nimport torch\nfrom collections import namedtuple\n"
                "def f(x, _t=2):\n    _s = torch.stack([x, x]).trace()\n    return getattr(torch, 'exp')(_s) * _t\n"
                "P = namedtuple('P', 'a b')\nname = 'exp'\ng = getattr(math, name)\nimport re\npat = re.compile('a+')\n"
                "from IPython.display import display, HTML\ndisplay(HTML('<b>table</b>'))\n"
                # the usual reproducibility snippet, a script guard and IPython's display by another name
                "torch.backends.cudnn.deterministic = True\ntorch.backends.cudnn.benchmark = False\n"
                "if __name__ == '__main__':\n    pass\nfrom IPython import display as show\n"
                # names built from pieces that are no dunder; an ordinary op of torch.ops; a traceback printed
                "h = getattr(torch, 'float' + '16')\ny = torch.ops.aten.add(x, x)\nimport traceback\n"
                "try:\n    1 / 0\nexcept ZeroDivisionError:\n    traceback.print_exc()\n"
                # names computed the ordinary way (white-box 11 flags names disguised at run time, not these)
                "d = getattr(torch, name)\nlayer = getattr(model, f'layer{i}')\nact = getattr(F, cfg['act'])\n"
                # red team 16: honest idioms once flagged (the GPU clean-up, memory measured, a signature read,
                # an object's attributes, the re-run guard, a message from a function's locals, IPython's
                # display, a debugging import left behind); strings that hold harmless code
                "import gc\ngc.collect()\nimport tracemalloc\ntracemalloc.start()\n"
                "cur, peak = tracemalloc.get_traced_memory()\nimport inspect\nsig = inspect.signature(f)\n"
                "from inspect import signature\np = P(1, 2)\nprint(vars(p))\nif 'cache' not in globals():\n    cache = {}\n"
                "def g(d_k, heads):\n    return 'd_k={d_k} heads={heads}'.format(**locals())\n"
                "import IPython\nIPython.display.display(IPython.display.Markdown('**x**'))\nimport pdb\n"
                "note = 'x.mean(dim=-1)'\nkind = 'torch.float32'\n"
                # a module put in evaluation mode, a pattern compiled: methods, not the builtins eval and compile
                "layer = torch.nn.Linear(2, 2).eval()\nlayer.train()\n"
                # a name computed on torch's public modules under other names
                "import torch.nn.functional as fn\nact2 = getattr(fn, cfg['act'])\nfrom torch import nn\n"
                "cls = getattr(nn, 'Linear')\n")
    assert guard.static_findings("part", ordinary, protected, test_builtins) == []


def _lesson_code() -> list[tuple[str, str]]:
    """Every code cell of the lesson pages (as the lesson runner reads them) and of the pages' notebooks: code a
    student may well copy into a cell of their own."""
    code_cells = load_script("experiments/lessons_on_device.py").code_cells
    found = []
    for page in sorted((ROOT / "chapters").glob("*/*")):
        if page.suffix == ".md":
            cells = code_cells(page.read_text(encoding="utf-8"))
        elif page.suffix == ".ipynb" and page.name != "exercises.ipynb":
            cells = ["".join(c["source"]) for c in load(page)["cells"] if c["cell_type"] == "code"]
        else:
            continue
        found += [(f"{page.parent.name}/{page.name}", cell) for cell in cells]
    return found


def test_static_scan_flags_no_lesson_code():
    """Red team 16 found honest idioms flagged; scanning the lessons' own code found `model.eval()` flagged as code
    built at run time. A student who copies a lesson's cell into the notebook must not be flagged for it."""
    protected, test_builtins = _grader_names(CHAPTER)
    cells = _lesson_code()
    assert len(cells) > 100
    flagged = [(page, found) for page, code in cells if (found := guard.static_findings("c", code, protected, test_builtins))]
    assert flagged == [], flagged


@pytest.mark.parametrize("chapter", [c for c in CHAPTERS if getattr(importlib.import_module(
    "mutants_" + c.replace("-", "_")), "FLAGGED", None)])
def test_static_scan_flags_each_chapters_hostile_answers(chapter):
    protected, test_builtins = _grader_names(chapter)
    hostile = importlib.import_module("mutants_" + chapter.replace("-", "_")).FLAGGED
    missed = [name for name, cells in hostile.items()
              if not any(guard.static_findings(gid, code, protected, test_builtins) for gid, code in cells.items())]
    assert not missed, missed


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_static_scan_flags_no_honest_answer(chapter):
    protected, test_builtins = _grader_names(chapter)
    mutants = importlib.import_module("mutants_" + chapter.replace("-", "_"))
    answers = {"model answer": solution_code(chapter), **mutants.CORRECT_VARIANTS}
    flagged = {}
    for name, cells in answers.items():
        for gid, code in cells.items():
            found = guard.static_findings(gid, code, protected, test_builtins)
            if found:
                flagged[f"{name}/{gid}"] = found
    assert len(answers) >= 2 and not flagged, flagged


# --------------------------------------------------------------------------- audit events Python raises

AUDIT_TRIGGERS = {
    "sys._getframe": "sys._getframe()",
    "sys._current_frames": "sys._current_frames()",
    "gc.get_objects": "gc.get_objects()",
    "gc.get_referrers": "gc.get_referrers(sys)",
    "gc.get_referents": "gc.get_referents(sys)",
    "sys.settrace": "sys.settrace(None)",
    "sys.setprofile": "sys.setprofile(None)",
    "object.__getattr__": "g = (i for i in ()); g.gi_frame\ntry:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__.tb_frame",
    "object.__setattr__": "def f():\n    pass\nf.__code__ = (lambda: None).__code__",
    "code.__new__": "(lambda: None).__code__.replace()",
    "ctypes.string_at": "ctypes.string_at(id(1), 1)",
    "ctypes.cdata": "ctypes.c_long.from_address(id(1))",
    "ctypes.dlsym": "ctypes.pythonapi.Py_IncRef",
    "os.system": "os.system('true')",
    "subprocess.Popen": "subprocess.run(['true'])",
    "os.posix_spawn": "os.waitpid(os.posix_spawn('/bin/true', ['true'], {}), 0)",
    "sys.addaudithook": "sys.addaudithook(lambda *a: None)",
    "compile": "compile('1', '/tmp/ipykernel_1/2.py', 'eval')",
    "marshal.loads": "import marshal\nmarshal.loads(marshal.dumps(1))",
    "pickle.find_class": "import pickle\npickle.loads(pickle.dumps(len))",
}


def _hook_path_functions(installed: tuple[str, ...], calls: list[str]):
    """The audit hook's own ``resolved`` (and the ``walk`` it uses), taken out of its source and run here with
    ``installed`` as the installed folders; ``calls`` records every path it hands to ``lstat``."""
    tree = ast.parse(guard.AUDIT_SOURCE.replace("%r", "None"))
    install = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "__attnlab_install_audit__")
    wanted = [n for n in install.body if isinstance(n, ast.FunctionDef) and n.name in ("resolved", "walk")]
    assert len(wanted) == 2, "the audit hook's resolved() and walk() were not found"

    def lstat(path):
        calls.append(path)
        return os.lstat(path)

    namespace = {"lstat": lstat, "readlink": os.readlink, "s_islnk": __import__("stat").S_ISLNK, "getcwd": os.getcwd,
                 "plain": lambda x: x if type(x) is str else None, "os_error": OSError, "value_error": ValueError,
                 "installed": installed, "known_dirs": {}}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), "<resolved>", "exec"), namespace)
    return namespace["resolved"]


def test_the_hooks_path_resolution_is_realpaths_and_asks_once_per_installed_folder(tmp_path):
    # the hook resolves every module file an import or an exec names (red team 23: never through posixpath, which an
    # answer can patch); a folder below an installed one is resolved once, not again for every file in it
    root = tmp_path / "site"
    (root / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (root / "pkg" / "sub" / "m.py").write_text("")
    (tmp_path / "elsewhere" / "x.py").write_text("")
    os.symlink(tmp_path / "elsewhere", root / "pkg" / "out")             # a folder link out of the installed folder
    os.symlink("../sub/m.py", root / "pkg" / "sub" / "rel.py")          # a relative file link
    os.symlink(tmp_path / "elsewhere" / "x.py", root / "pkg" / "abs.py")  # an absolute file link
    os.symlink("loop2", root / "pkg" / "loop1")
    os.symlink("loop1", root / "pkg" / "loop2")
    calls = []
    resolved = _hook_path_functions((str(root) + "/",), calls)
    paths = [root / "pkg" / "sub" / "m.py", root / "pkg" / "sub" / "rel.py", root / "pkg" / "abs.py",
             root / "pkg" / "out" / "x.py", root / "pkg" / "out" / "missing.py", root / "pkg" / "sub" / ".." / "abs.py",
             root / "pkg" / "missing" / "y.py", root / "pkg" / "sub", tmp_path / "elsewhere" / "x.py"]
    for path in paths:
        assert resolved(str(path)) == os.path.realpath(path), path
    looped = resolved(str(root / "pkg" / "loop1" / "z.py"))
    assert looped.startswith(str(root / "pkg")), looped
    # twenty files of one installed folder: its path is looked at once, then one lstat per file
    (root / "pkg" / "sub" / "many").mkdir()
    before = len(calls)
    for i in range(20):
        assert resolved(str(root / "pkg" / "sub" / "many" / f"f{i}.py")) == str(root / "pkg" / "sub" / "many" / f"f{i}.py")
    depth = len((root / "pkg" / "sub" / "many").parts)
    assert len(calls) - before <= depth + 20, len(calls) - before


def test_python_raises_every_audit_event_the_guard_relies_on():
    """Each event the audit hook records is really raised by this Python for its trigger."""
    assert set(AUDIT_TRIGGERS) - {"compile"} <= set(guard.AUDIT_EVENTS)
    script = ("import sys, gc, os, ctypes, subprocess, json\nseen = set()\n"
              "sys.addaudithook(lambda e, a: seen.add(e))\nresult = {}\n")
    for event, code in AUDIT_TRIGGERS.items():
        script += (f"seen.clear()\nexec({code!r})\n"
                   f"result[{event!r}] = {event!r} in seen\n")
    script += "print(json.dumps(result))\n"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    raised = json.loads(proc.stdout.strip().splitlines()[-1])
    assert all(raised.values()), {e: r for e, r in raised.items() if not r}


def test_reset_switches_puts_back_the_deterministic_flag_without_importing_inductor():
    """In a fresh interpreter: before every test cell the grader puts torch's switches back. With nothing to put
    back it must not call torch.use_deterministic_algorithms, which imports torch._inductor and torch._dynamo
    (more than a second of every graded notebook); whatever an answer set (the flag, warn_only alone, inductor's
    `deterministic`) is put back."""
    script = ("import sys, builtins, json, torch\nreset = " + repr(guard.RESET_SWITCHES) + "\n"
              "run = lambda: eval(reset, {'__builtins__': builtins})\nout = {}\nrun()\n"
              "out['inductor after a plain reset'] = 'torch._inductor' in sys.modules\n"
              "torch.use_deterministic_algorithms(False, warn_only=True)\nrun()\n"
              "out['warn_only left'] = torch.is_deterministic_algorithms_warn_only_enabled()\n"
              "torch.use_deterministic_algorithms(True, warn_only=True)\nrun()\n"
              "out['flag left'] = torch.are_deterministic_algorithms_enabled()\n"
              "import torch._inductor.config as c\nc.deterministic = True\nrun()\n"
              "out['inductor deterministic left'] = c.deterministic\nprint(json.dumps(out))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {
        "inductor after a plain reset": False, "warn_only left": False, "flag left": False,
        "inductor deterministic left": False}


def test_print_options_are_checked_and_put_back_without_running_an_answers_code():
    """The check after every test cell and the reset before it read torch's print options inside the grader's requests:
    an option set to an object of the answer's (whose comparisons would run its code there), or the options object
    replaced by one whose attribute reads and writes run code, is reported as changed and put back where it can be,
    and none of that object's code runs."""
    import builtins

    import torch

    ran = []
    Lying = equal_to_anything(ran)

    class Options:
        def __getattribute__(self, name):
            ran.append("get " + name)
            return 4

        def __setattr__(self, name, value):
            ran.append("set " + name)

    run = lambda code: eval(code, {"__builtins__": builtins})  # noqa: E731
    threads, saved = torch.get_num_threads(), torch._tensor_str.PRINT_OPTS
    try:
        assert run(guard.settings_changed(threads)) == ""
        torch.set_printoptions(precision=Lying())
        assert run(guard.settings_changed(threads)) == "the print options (torch.set_printoptions)"
        run(guard.reset_switches(threads))
        assert run(guard.settings_changed(threads)) == "" and torch._tensor_str.PRINT_OPTS.precision == 4
        torch._tensor_str.PRINT_OPTS = Options()
        assert run(guard.settings_changed(threads)) == "the print options (torch.set_printoptions)"
        run(guard.reset_switches(threads))
    finally:
        torch._tensor_str.PRINT_OPTS = saved
        torch.set_printoptions(profile="default")
    assert ran == []


@pytest.mark.slow
def test_the_grader_imports_neither_dynamo_nor_inductor_into_a_notebook_that_does_not(tmp_path):
    """torch._dynamo and torch._inductor cost about 1.2 s of CPU in every graded notebook that imports them; the
    grader's own cells (the reset of torch's switches, the preload before the first student cell) must not, so a
    notebook that uses plain torch never pays for them. Nor does a dispatch mode that a hidden test makes (torch
    wraps its __torch_dispatch__ to keep torch.compile out, importing torch._dynamo at its first call), unless the
    notebook loaded torch._dynamo already: a mode made then is wrapped as torch wraps it."""
    mode = ("### BEGIN HIDDEN TESTS\nclass _Ops(_REF['DispatchMode']):\n"
            "    def __torch_dispatch__(self, func, types, args=(), kwargs=None):\n"
            "        self.seen = str(func)\n        return func(*args, **(kwargs or {}))\n"
            "with _Ops() as _m:\n    _y = double(torch.ones(3))\n"
            "assert _m.seen == 'aten.mul.Tensor' and _y[0] == 2\n"
            "assert hasattr(_Ops.__torch_dispatch__, '__wrapped__') == ('torch._dynamo' in sys.modules)\n"
            "### END HIDDEN TESTS")
    ctx, cells = run_notebook(tmp_path, [
        ("import torch, sys\nfrom torch.utils._python_dispatch import TorchDispatchMode\n"
         "_REF = {'ones': torch.ones, 'DispatchMode': TorchDispatchMode}", "setup", "locked"),
        ("def double(x):\n    return x * 2\ny = torch.ones(3) * 2", "a1", "student"),
        ("assert y.sum() == 6\n" + mode, "t1", "test"),
        ("print(sorted(m for m in ('torch._dynamo', 'torch._inductor') if m in sys.modules))", "a2", "student"),
        ("import torch._dynamo", "a3", "student"), ("assert y.sum() == 6\n" + mode, "t2", "test")])
    assert not ctx.tampered and not [o for t in ("t1", "t2") for o in cells[t].outputs
                                     if o.get("output_type") == "error"], (ctx.tampered, cells["t1"].outputs,
                                                                           cells["t2"].outputs)
    assert "".join(o.get("text", "") for o in cells["a2"].outputs).strip() == "[]", cells["a2"].outputs


# the hook's record and the cell it files events under are reached through the gate only (red team 17 F1, F3)
# (each request tagged as guard.request_tag tags the grader's, with the secret 'g')
HOOK_ACCESS = (
    "import sys, hashlib, os\n"
    "sys.audit('attnlab.gate', 'g')\n"
    "def _tag(kind):\n"
    "    nonce = os.urandom(8).hex()\n"
    "    text = kind + chr(0) + nonce + chr(0) + repr(())\n"
    "    return nonce + ':' + hashlib.blake2b(text.encode(), key=b'g', digest_size=16).hexdigest()\n"
    "def set_cell(cell):\n"
    "    sys.audit('attnlab.probe', _tag('attnlab.probe'), {'cell': cell})\n"
    "def events():\n"
    "    box = {'take': True}\n"
    "    sys.audit('attnlab.probe', _tag('attnlab.probe'), box)\n"
    "    return box['events']\n")


def test_code_made_from_text_gets_no_frame_no_object_and_no_grader_name():
    """In a fresh interpreter with the hook (red team 24, hostile): code made from text that no cell holds (exec of
    a string, as a collector's callback or a thread runs it, with no frame of a student cell on its stack) is refused
    stack frames, the interpreter's objects and code objects made otherwise than by compiling; and nobody but the
    hook compiles code under the grader's names or a frozen module's, which that refusal lets through."""
    texts = {"frame": "import sys\nsys._getframe()", "objects": "import gc\ngc.get_objects()",
             "traceback frame": "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    e.__traceback__.tb_frame",
             "new code": "(lambda: 0).__code__.replace(co_filename='<attnlab request>')",
             "plain work": "sum(range(10))"}
    script = guard.audit_source() + HOOK_ACCESS + (
        "import json\nset_cell(('part', 'student'))\nout = {}\n"
        f"for name, text in {texts!r}.items():\n"
        "    try:\n        exec(compile(text, '<text>', 'exec'), {})\n        out[name] = 'allowed'\n"
        "    except RuntimeError as e:\n        out[name] = str(e)\n"
        "for name in ('<attnlab request>', '<frozen os>', '<other>'):\n"
        "    try:\n        compile('x = 1', name, 'exec')\n        out[name] = 'allowed'\n"
        "    except RuntimeError as e:\n        out[name] = str(e)\n"
        "out['recorded'] = sorted({e[0] for e in events()})\nprint(json.dumps(out))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    refused = "grading refuses frames and the interpreter's objects to code made from text"
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {
        "frame": refused, "objects": refused, "traceback frame": refused, "new code": refused, "plain work": "allowed",
        "<attnlab request>": "grading refuses code named like the grader's or a frozen module's",
        "<frozen os>": "grading refuses code named like the grader's or a frozen module's", "<other>": "allowed",
        "recorded": ["compile.grader_name", "introspection.text"]}


def test_the_audit_hook_refuses_new_hooks_and_records_only_student_code():
    """In a fresh interpreter: the hook records a cell's own sys._getframe, not a library's (namedtuple)."""
    script = guard.audit_source() + (
        "import sys, collections\n"
        + HOOK_ACCESS +
        "set_cell(('part', 'student'))\n"
        "code = compile('import sys\\ndef f():\\n    return sys._getframe()\\n', '/tmp/ipykernel_1/1.py', 'exec')\n"
        "ns = {}\nexec(code, ns)\nns['f']()\n"
        "collections.namedtuple('P', 'a b')\n"
        "sys.addaudithook(lambda *a: None)\n"
        "import json\nprint(json.dumps([list(e) for e in events()]))\nprint(sys.modules['__attnlab_audit__'].refused)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    events, refused = proc.stdout.strip().splitlines()[-2:]
    assert json.loads(events) == [["sys._getframe", "", "part", 3, "part"]] and refused == "1"


def test_code_a_timing_magic_compiled_for_a_student_cell_is_the_students():
    """%%time compiles the cell's code as a syntax tree under the name "<timed exec>" (its compile event has no
    file name): a function defined there that reads frames when a test calls it is recorded."""
    script = guard.audit_source() + (
        "import ast, sys, json\n"
        + HOOK_ACCESS +
        "set_cell(('part', 'student'))\n"
        "tree = ast.parse('import sys\\ndef f():\\n    return sys._getframe(1)\\n')\n"
        "ns = {}\nexec(compile(tree, '<timed exec>', 'exec'), ns)\n"
        "set_cell(('test_part', 'grader'))\n"
        "ns['f']()\n"
        "print(json.dumps([list(e) for e in events()]))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [["sys._getframe", "", "part", 3, "test_part"]]


UNPICKLING_CELL = r"""import io, json, marshal, pickle, torch
def honest():
    return pickle.loads(pickle.dumps({"w": torch.ones(2), "n": [1, 2.5, (3,)], "s": {1}}))
def fresh_import():
    import tabnanny  # not imported by torch: the import system unmarshals its compiled code
def library_through_pickle():
    return pickle.loads(b"cbuiltins\n__import__\n(Vjson\ntR.")
def through_torch_load():
    buffer = io.BytesIO()
    torch.save(json.dumps, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=False)
def code_from_bytes():
    return marshal.loads(marshal.dumps(compile("1", "x", "eval")))
"""


def test_the_audit_hook_records_code_a_student_cell_unpickles_or_unmarshals():
    """Unpickling a reference outside tensors and plain containers (another library, ``builtins.__import__``),
    directly or through ``torch.load``, and ``marshal.loads`` of a student cell's own are recorded; an honest
    pickle round trip of tensors and the import system's own marshal calls are not."""
    script = guard.audit_source() + (
        "import sys, json\n"
        + HOOK_ACCESS +
        "set_cell(('part', 'student'))\n"
        f"ns = {{}}\nexec(compile({UNPICKLING_CELL!r}, '/tmp/ipykernel_1/1.py', 'exec'), ns)\n"
        "for name in ('honest', 'fresh_import', 'library_through_pickle', 'through_torch_load', 'code_from_bytes'):\n"
        "    ns[name]()\n"
        "print(json.dumps([[e[0], e[1], e[3]] for e in events()]))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    events = json.loads(proc.stdout.strip().splitlines()[-1])
    # (the compile of code under the file name "x", no cell's, is recorded too: red team 15)
    assert events == [["pickle.find_class", "builtins.__import__", 7], ["pickle.find_class", "json.dumps", 12],
                      ["compile", "x", 14], ["marshal.loads", "", 14]], events
    assert "library rule" in guard.describe_event("pickle.find_class", "numpy.sqrt")


def test_probe_names_what_changed(monkeypatch):
    """The fingerprint, taken twice in this process (no kernel): ordinary use changes nothing."""
    import numpy
    import torch

    def probe():
        nonce = os.urandom(4).hex()
        text = repr(eval(guard.probe_expression(nonce, detail=None), {"__attnlab_kernel__": None}))
        value = guard.read_probe(text, nonce)
        assert value is not None and value["errors"] == []
        return value

    before = probe()
    torch.nn.functional.softmax(torch.ones(3), dim=-1)
    assert guard.compare(before["detail"], probe()["detail"]) == []
    monkeypatch.setattr(torch, "allclose", lambda *a, **k: True)
    monkeypatch.setattr(numpy, "allclose", lambda *a, **k: True)
    monkeypatch.setattr(torch.Tensor, "all", lambda self, *a, **k: True, raising=False)
    monkeypatch.setattr(torch.nn.Module, "zero_grad", lambda self, *a, **k: None)
    monkeypatch.setattr(sys, "path_hooks", [*sys.path_hooks, lambda path: None])
    after = probe()
    changed = [guard.describe(g, k) for g, k in guard.compare(before["detail"], after["detail"])]
    assert sorted(changed) == ["numpy.allclose", "the import system (sys.path_hooks)", "torch.Tensor.all", "torch.allclose",
                               "torch.nn.Module.zero_grad"], changed
    assert guard.read_probe(repr(eval(guard.probe_expression("abc"), {"__attnlab_kernel__": None})),
                            "another nonce") is None


# --------------------------------------------------------------------------- the run-time guard alone

def _cell(source: str, gid: str, kind: str):
    meta = {"grade_id": gid, "solution": kind == "student", "grade": kind == "test", "locked": kind != "student"}
    if kind == "test":
        meta["points"] = 1
    return nbformat.v4.new_code_cell(source, metadata={"nbgrader": meta})


SETUP = "import torch, os, sys\n_REF = {'allclose': torch.allclose}\nx = 1\ndef _hidden_helper(a, b=1):\n    return a"


def run_notebook(tmp: Path, cells: list[tuple[str, str, str]], static=None, tags=None,
                 **options) -> tuple[StudentContext, dict]:
    """Run ``[(source, grade id, kind)]`` with :class:`HardenedExecute` in a plain kernel; no static scan, but
    ``static`` (``{cell id: reasons}``) stands for one's findings; ``tags``: ``{grade id: [tag, ...]}``."""
    submitted = tmp / "submitted"
    submitted.mkdir(parents=True)
    (submitted / "exercises.ipynb").write_text("{}", encoding="utf-8")
    (tmp / "run").mkdir()
    ctx = StudentContext(protected={"_REF"}, test_builtins={"isinstance", "len"}, submitted=str(submitted),
                         static=dict(static or {}))
    CONTEXT.clear()
    CONTEXT["s"] = ctx
    nb = nbformat.v4.new_notebook(cells=[_cell(*c) for c in cells])
    for cell in nb.cells:
        cell.metadata["tags"] = list((tags or {}).get(cell.metadata.nbgrader["grade_id"], []))
    try:
        options.setdefault("timeout", 120)
        out, _ = HardenedExecute(kernel_name="python3", **options).preprocess(
            nb, {"nbgrader": {"student": "s"}, "metadata": {"path": str(tmp / "run")}})
    finally:
        CONTEXT.clear()
    return ctx, {c.metadata.nbgrader["grade_id"]: c for c in out.cells}


def report_attacks(attacks: dict, setup: str, protected: set, names, prefix: str, clip: int = 400, extra=None) -> None:
    """Run each named attack of ``attacks`` (all when ``names`` is empty) after the locked cell ``setup`` in the
    cheap harness and print what the red-team records show: the runtime flags, the static scan's findings on the
    student cells, each test cell's outcome and what each student cell printed (``clip`` characters). ``extra(cells)``
    gives more lines to print (the round-24 hostile pass: the static scan on its text written plainly)."""
    import tempfile

    base = Path(tempfile.mkdtemp(prefix=prefix))
    for name in names or attacks:
        cells = [(setup, "setup", "locked"), *attacks[name]]
        ctx, out = run_notebook(base / name, cells)
        static = {gid: guard.static_findings(gid, src, protected, set()) for src, gid, kind in cells if kind == "student"}
        print(f"== {name}")
        print("   tampered:", ctx.tampered)
        print("   static:  ", {k: v for k, v in static.items() if v} or "none")
        for line in (extra(cells) if extra else []):
            print("  ", line)
        for gid, cell in out.items():
            if cell.metadata.nbgrader.get("grade"):
                errs = [o.get("ename") for o in cell.outputs if o.get("output_type") == "error"]
                print(f"   test {gid}:", "PASSED" if not errs else f"failed {errs}")
            else:
                text = "".join(o.get("text", "") for o in cell.outputs)
                if text:
                    print(f"   cell {gid} printed:", text.strip()[:clip])


def _wrap(name: str, attack: str) -> str:
    """A student function ``name`` that runs ``attack`` each time a test calls it."""
    body = "\n".join("    " + line for line in attack.splitlines())
    return f"def {name}():\n{body}\n    return 1\n"


# attack -> (code of one student cell, text of the reason it must get). Batches share a kernel.
RUNTIME_BATCHES = {
    "ipython": {
        "input_post": ("get_ipython().input_transformers_post.append(lambda l: ['pass\\n'] if 'assert' in ''.join(l) else l)",
                       "IPython's input transformers (input_transformers_post) changed"),
        "input_cleanup": ("get_ipython().input_transformers_cleanup.insert(0, lambda l: l)",
                          "IPython's input transformers (input_transformers_cleanup) changed"),
        "ast_wrap": ("import ast\nclass _W(ast.NodeTransformer):\n    def visit_Module(self, node):\n"
                     "        h = ast.ExceptHandler(type=ast.Name('BaseException', ast.Load()), name=None, body=[ast.Pass()])\n"
                     "        t = ast.Try(body=node.body or [ast.Pass()], handlers=[h], orelse=[], finalbody=[])\n"
                     "        return ast.fix_missing_locations(ast.Module(body=[t], type_ignores=[]))\n"
                     "get_ipython().ast_transformers.append(_W())", "IPython's AST transformers (ast_transformers) changed"),
        "custom_exc": ("get_ipython().set_custom_exc((AssertionError,), lambda *a, **k: None)",
                       "IPython's custom exception handler"),
        "class_run_cell": ("import IPython.core.interactiveshell as _m\n_o = _m.InteractiveShell.run_cell\n"
                           "_m.InteractiveShell.run_cell = lambda self, *a, **k: _o(self, *a, **k)",
                           "IPython.core.interactiveshell.InteractiveShell.run_cell changed"),
        "own_showtraceback": ("_ip = get_ipython()\n_ip.showtraceback = lambda *a, **k: None",
                              "the shell's own showtraceback changed"),
        "own_transform_cell": ("_ip = get_ipython()\n_t = _ip.transform_cell\n_ip.transform_cell = lambda c: _t(c)",
                               "the shell's own transform_cell changed"),
        "kernel_do_execute": ("_k = get_ipython().kernel\n_d = _k.do_execute\n_k.do_execute = lambda *a, **k: _d(*a, **k)",
                              "the kernel's own do_execute changed"),
        "event_callback": ("get_ipython().events.register('pre_run_cell', lambda *a: None)",
                           "IPython's event callbacks (pre_run_cell) changed"),
        "text_formatter": ("get_ipython().display_formatter.formatters['text/plain'].for_type(dict, lambda o, p, c: p.text('{}'))",
                           "IPython's text formatter's printers changed"),
        "transformer_manager": ("import IPython.core.inputtransformer2 as _t2\n"
                                "get_ipython().input_transformer_manager = _t2.TransformerManager()",
                                "IPython's input transformer manager changed"),
    },
    "interpreter": {
        "settrace": ("sys.settrace(lambda *a: None)", "the trace function (sys.settrace) changed"),
        "setprofile": ("def _p(frame, event, arg):\n    return None\nsys.setprofile(_p)",
                       "the profile function (sys.setprofile) changed"),
        "threading_trace": ("import threading\nthreading.settrace(lambda *a: None)", "threading's trace hook"),
        "threading_profile": ("import threading\nthreading.setprofile(lambda *a: None)", "threading's profile hook"),
        "meta_path": ("class _F:\n    def find_spec(self, *a, **k):\n        return None\nsys.meta_path.insert(0, _F())",
                      "the import system (sys.meta_path) changed"),
        "path_hooks": ("def _hook(path):\n    raise ImportError(path)\nsys.path_hooks.insert(0, _hook)",
                       "the import system (sys.path_hooks) changed"),
        "importer_cache": ("class _G:\n    def find_spec(self, *a, **k):\n        return None\n"
                           "sys.path_importer_cache['/nowhere'] = _G()", "the import system (sys.path_importer_cache) changed"),
        "import_hook": ("import builtins\n_real_import = builtins.__import__\n"
                        "builtins.__import__ = lambda *a, **k: _real_import(*a, **k)",
                        "builtins.__import__ changed"),
        "addaudithook": ("sys.addaudithook(lambda *a: None)", "line 1: tries to add an audit hook (refused)"),
        "getframe": ("def _f():\n    return sys._getframe(1).f_locals\n_f()", "line 2: reads stack frames (sys._getframe)"),
        "inspect": ("import inspect\ndef _g():\n    return inspect.currentframe().f_back.f_locals\n_g()",
                    "line 3: reads stack frames (sys._getframe)"),
        "tb_frame": ("try:\n    1 / 0\nexcept Exception as _e:\n    _fr = _e.__traceback__.tb_frame",
                     "line 4: reads a frame from a traceback or generator (tb_frame)"),
        "gc_objects": ("import gc\n_found = [o for o in gc.get_objects() if type(o) is torch.Tensor]",
                       "line 2: searches the interpreter's objects (gc.get_objects)"),
        "gc_referrers": ("import gc\n_r = gc.get_referrers(_REF)", "searches the interpreter's objects (gc.get_referrers)"),
        "ctypes": ("import ctypes\n_b = ctypes.string_at(id(x), 8)", "uses ctypes (ctypes.string_at)"),
        "subprocess": ("import subprocess\nsubprocess.run(['true'])", "starts a program (subprocess.Popen)"),
        "os_system": ("os.system('true')", "starts a program (os.system)"),
        "code_swap": ("import torch.testing\ndef _none(*a, **k):\n    return None\n"
                      "torch.testing.assert_close.__code__ = _none.__code__", "replaces a function's code (__code__)"),
    },
    "torch_and_names": {
        "audit_module": ("del sys.modules['__attnlab_audit__']", "the grader's audit hook changed"),
        "function_mode": ("from torch.overrides import TorchFunctionMode\nclass _M(TorchFunctionMode):\n"
                          "    def __torch_function__(self, f, t, a=(), k=None):\n        return f(*a, **(k or {}))\n_M().__enter__()",
                          "torch's function-mode stack (an active TorchFunctionMode) changed"),
        "dispatch_mode": ("from torch.utils._python_dispatch import TorchDispatchMode\nclass _D(TorchDispatchMode):\n"
                          "    def __torch_dispatch__(self, f, t, a=(), k=None):\n        return f(*a, **(k or {}))\n_D().__enter__()",
                          "torch's dispatch-mode stack (an active TorchDispatchMode) changed"),
        "module_method": ("torch.nn.Module.zero_grad = lambda *a, **k: None", "torch.nn.Module.zero_grad changed"),
        "torch_C": ("torch._C._get_tracing_state = lambda: None", "torch._C._get_tracing_state changed"),
        "torch_function": ("torch.isclose = lambda *a, **k: torch.ones(1, dtype=torch.bool)", "torch.isclose changed"),
        # torch's own lazy wrapper (what importing torch._dynamo does to manual_seed), around another function
        "dynamo_wrapper": ("def _no_seed(seed):\n    return None\ntorch.manual_seed = torch._disable_dynamo(_no_seed)",
                           "torch.manual_seed changed"),
        # white-box 9: torch.library reached by a name built at run time, the kernel of aten::isclose replaced,
        # and torch.testing's comparison classes patched through sys.modules
        "aten_kernel": ("_lib = getattr(torch, 'lib' + 'rary').Library('aten', 'IMPL')\n"
                        "_lib.impl('isclose', lambda a, b, *r, **k: torch.ones_like(a, dtype=torch.bool), 'CPU')",
                        # since red team 27 refused where it is asked for (the fingerprint of the kernels stays)
                        "registers kernels for torch's own operators (torch.library)"),
        "comparison_class": ("_m = sys.modules['torch.testing._com' + 'parison']\n"
                             "_m.TensorLikePair.compare = lambda self: None",
                             "torch.testing._comparison.TensorLikePair.compare changed"),
        "captured_reference": ("_REF['allclose'] = lambda *a, **k: True", "_REF['allclose'] changed"),
        "shadowed_builtin": ("isinstance = lambda *a: True", "shadows the builtin isinstance, which the tests use"),
    },
    "torch_state": {
        # white-box 11: what the hidden tests' own references go through, changed for every later cell
        "vf_einsum": ("_vf = torch._VF\n_vf.einsum = lambda *a, **k: None", "torch._VF.einsum changed"),
        "functional_global": ("import torch.functional as _tf\n_tf.isinstance = lambda *a: True",
                              "torch.functional.isinstance changed"),
        "nn_C": ("torch._C._nn.elu = lambda *a, **k: None", "torch._C._nn.elu changed"),
        "saved_tensor_hooks": ("torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()",
                               "torch's saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks) changed"),
        "module_global_hook": ("torch.nn.modules.module.register_module_forward_hook(lambda m, i, o: o)",
                               "torch.nn.Module's global hooks (register_module_forward_hook, ...) changed"),
        "python_key_excluded": ("torch._C._dispatch_tls_set_dispatch_key_excluded(torch._C.DispatchKey.Python, True)",
                                "torch's dispatch keys of this thread (_dispatch_tls_local_exclude_set) changed"),
        # a kernel for aten::bmm, behind every torch.einsum of a hidden test's reference
        "reference_kernel": ("_lib2 = getattr(torch, 'lib' + 'rary').Library('aten', 'IMPL')\n"
                             "_lib2.impl('bmm', lambda a, b: a, 'CPU')",
                             "registers kernels for torch's own operators (torch.library)"),
        # a Python kernel for aten::isclose, which torch's Python dispatcher runs instead of the real one
        "py_impl": ("torch.ops.aten.isclose.default.py_impl(torch._C.DispatchKey.CPU)(lambda *a, **k: None)",
                    "the Python kernels of torch's comparison operators (py_impl) changed"),
        # refused since round 28: torch's Python dispatcher is never turned on while a notebook is graded
        "python_dispatcher": ("_on = torch._C._EnablePythonDispatcher()\n_on.__enter__()",
                              "turns on torch's Python dispatcher (torch._C._EnablePythonDispatcher)"),
    },
    # red team 15: code that no cell holds, so that neither the static scan nor the audit hook's owner of a frame
    # saw it (a module written into the kernel's folder and loaded from there), and a thread left running, which
    # swapped the tests' helpers inside each test cell, after the check between cells
    "unseen_code": {
        "module_from_file": ("import importlib.util as _u\nopen('spy_mod.py', 'w').write('import sys\\n_f = sys._getframe(0)\\n')\n"
                             "_s = _u.spec_from_file_location('spy_mod', 'spy_mod.py')\n_s.loader.exec_module(_u.module_from_spec(_s))",
                             "runs code from the file 'spy_mod.py', which is no cell of the notebook"),
        # red team 15, F1b: no file at all, code compiled under an installed module's name (its frames pass for
        # library code), and a compiled file that claims to be one, loaded by hand
        "forged_file_name": ("import codeop, os, sysconfig\n"
                             "_c = codeop.Compile()('x2 = 1', os.path.join(sysconfig.get_paths()['stdlib'], 'nntplib.py'), 'exec')",
                             "compiles code under the file name"),
        "pyc_by_hand": ("import importlib.machinery as _im, os, py_compile, sysconfig\nopen('spy2.py', 'w').write('y = 1\\n')\n"
                        "py_compile.compile('spy2.py', cfile='spy2.pyc', dfile=os.path.join(sysconfig.get_paths()['stdlib'], 'nntplib.py'))\n"
                        "_im.SourcelessFileLoader('spy2', 'spy2.pyc').load_module()",
                        "runs code from the file 'spy2.pyc'"),
        # red team 16: inspect reads a function's code for its caller; a library's function or the student's own
        # is fine (the honest notebook below), a grader cell's is not
        "inspect_grader_function": ("import inspect\n_sig = inspect.signature(_hidden_helper)",
                                    "reads a function's code (__code__)"),
        # red team 16: what carries the kernel's replies, wrapped so that a test cell's real reply could be dropped
        # after a forged one
        "session_send": ("_k = get_ipython().kernel\n_send = _k.session.send\n"
                         "_k.session.send = lambda *a, **kw: _send(*a, **kw)",
                         "the kernel's session's own methods changed"),
        # red team 16 F14: a signal handler is handed the running frame (a timer's, a test's while one runs)
        # refused by the hook's gate since red team 23 (a handler is handed the running frame); the check's
        # fingerprint of the handlers stays behind it
        "signal_handler": ("import signal as _sg\n_sg.signal(_sg.SIGUSR1, lambda number, frame: None)",
                           "sets a signal handler of its own (signal.signal)"),
        # red team 16, second round: logging.currentframe() hands the caller's frame back, and the audit hook took
        # the request for logging's own
        "logging_currentframe": ("import logging\n_f = logging.currentframe()", "reads stack frames (sys._getframe)"),
        "timer_armed": ("import signal as _sg\n_sg.setitimer(_sg.ITIMER_PROF, 1000.0)", "timer ITIMER_PROF armed changed"),
        "thread_left_running": ("import threading, time\ndef _watch():\n    while True:\n        time.sleep(0.5)\n"
                                "threading.Thread(target=_watch, daemon=True).start()",
                                "threads that run the student's code after its cell (threading) changed"),
    },
    # student code that a test calls: each in a kernel of its own, so that its test cell runs
    "profile_in_test": {"profile_during_test": (_wrap("answer", "sys.setprofile(lambda *a: None)"),
                                                "line 2: sets a profile function (sys.setprofile) "
                                                "(while cell after_profile_during_test ran)")},
    "frame_in_test": {"frame_during_test": (_wrap("answer2", "_v = sys._getframe(1).f_globals.get('x')"),
                                            "line 2: reads stack frames (sys._getframe), where the tests keep their "
                                            "expected values (while cell after_frame_during_test ran)")},
}
CALLS = {"profile_during_test": "answer()", "frame_during_test": "answer2()"}


# red team 16, F13: an answer that sends the kernel's reply to the test cell that called it, before the test's first
# check; the client took the cell as finished without error, and a notebook computing nothing scored full marks
FORGE = ("_forged = set()\ndef answer_forge():\n    k = get_ipython().kernel\n    parent = k.get_parent('shell')\n"
         "    mid = parent.get('header', {}).get('msg_id')\n    if mid in _forged:\n        return\n    _forged.add(mid)\n"
         "    k.session.send(k.shell_stream, 'execute_reply', {'status': 'ok', 'execution_count': k.execution_count,\n"
         "                   'user_expressions': {}, 'payload': []}, parent, ident=k._parent_ident['shell'])\n"
         "    k._publish_status('idle', 'shell', parent)\n")


# ... and the same with every later message of that request dropped, by a wrapper of the session's send that removes
# itself at the request's last message (so no check between cells sees it): the grader then gets one reply and one
# idle status, as from a real kernel
SUPPRESS = FORGE.replace("    k._publish_status('idle', 'shell', parent)\n", (
    "    k._publish_status('idle', 'shell', parent)\n    real = type(k.session).send\n"
    "    def quiet(stream, kind, content=None, parent=None, *a, **kw):\n"
    "        if (parent or {}).get('header', {}).get('msg_id') == mid:\n"
    "            if kind == 'status' and (content or {}).get('execution_state') == 'idle':\n"
    "                del k.session.send\n"
    "            return None\n"
    "        return real(k.session, stream, kind, content, parent, *a, **kw)\n"
    "    k.session.send = quiet\n"))


@pytest.mark.slow
@pytest.mark.parametrize("answer, reason", [
    (FORGE, "the kernel answered this cell twice"),
    (SUPPRESS, "the reply to this test cell was not the kernel's own")], ids=["second_reply", "real_reply_dropped"])
def test_a_reply_forged_for_a_test_cell_is_flagged(tmp_path, answer, reason):
    ctx, cells = run_notebook(tmp_path, [(SETUP, "setup", "locked"), (answer, "a1", "student"),
                                         ("answer_forge()\nassert x == 2, 'the answer is wrong'", "t1", "test"),
                                         ("y = 3", "a2", "student"), ("assert x == 1", "t2", "test")])
    assert any(r.startswith(f"cell t1: {reason}") for r in ctx.tampered), ctx.tampered
    assert "t1" in ctx.skipped_tests
    assert any(o.get("ename") == "NotGraded" for o in cells["t1"].outputs), cells["t1"].outputs


@pytest.fixture(scope="module")
def runtime_runs(tmp_path_factory):
    runs = {}
    for batch, attacks in RUNTIME_BATCHES.items():
        cells = [(SETUP, "setup", "locked"), ("y = 2", "honest", "student"), ("assert x == 1", "after_honest", "test")]
        for name, (code, _) in attacks.items():
            cells += [(code, name, "student"), (f"assert x == 1\n{CALLS.get(name, '')}", f"after_{name}", "test")]
        # each attack must be named, so the cells after the first flag run too (the grader's default stops there)
        runs[batch] = run_notebook(tmp_path_factory.mktemp(batch), cells, keep_running_when_flagged=True)
    return runs


@pytest.mark.slow
@pytest.mark.parametrize("batch, attack", [(b, a) for b, attacks in RUNTIME_BATCHES.items() for a in attacks])
def test_runtime_guard_flags_each_hook_with_its_cell(runtime_runs, batch, attack):
    ctx, cells = runtime_runs[batch]
    expected = RUNTIME_BATCHES[batch][attack][1]
    owner = attack
    assert any(r.startswith(f"cell {owner}") and expected in r for r in ctx.tampered), ctx.tampered
    # the test cell after it is not graded automatically
    assert f"after_{attack}" in ctx.skipped_tests
    assert any(o.get("ename") == "NotGraded" for o in cells[f"after_{attack}"].outputs)


@pytest.mark.slow
def test_runtime_guard_leaves_honest_cells_alone(runtime_runs):
    for batch, (ctx, cells) in runtime_runs.items():
        assert not any(r.startswith("cell honest") or r.startswith("cell setup") for r in ctx.tampered), ctx.tampered
        assert "after_honest" not in ctx.skipped_tests and not cells["after_honest"].outputs, batch
        first_attack = next(iter(RUNTIME_BATCHES[batch]))
        assert ctx.tampered[0].startswith(f"cell {first_attack}"), ctx.tampered


@pytest.mark.slow
def test_an_honest_notebook_with_libraries_is_not_flagged(tmp_path):
    """Imports, namedtuples, dataclasses, matplotlib-free plotting helpers, warnings, errors and torch.func are
    not hooks."""
    honest = ("import collections, dataclasses, warnings, typing, functools, contextlib\n"
              "P = collections.namedtuple('P', 'a b')\n@dataclasses.dataclass\nclass C:\n    a: int = 1\n"
              "@contextlib.contextmanager\ndef ctx():\n    yield 1\nwith ctx():\n    pass\n"
              "warnings.warn('careful')\nimport torch.distributions, json, fractions, statistics\n"
              "f = functools.lru_cache()(lambda n: n)\n_z = torch.nn.Linear(2, 2)(torch.ones(1, 2)).sum().backward()\n"
              # torch.func registers kernels of its own at its first call, one for an operator the references
              # use (aten::nll_loss_forward): not the answer's change (red team 13, a correct Jacobian by vmap)
              "import torch.func\n_j = torch.func.vmap(torch.func.jacrev(torch.sin))(torch.ones(2, 3))\n"
              # and the other ways of computing that register or load something at their first use
              "import torch.autograd.functional as AF, torch.autograd.forward_ad as fwAD, torch.utils.checkpoint\n"
              "_j = AF.jacobian(torch.sin, torch.ones(3), vectorize=True)\n_j = torch.vmap(torch.outer)(torch.ones(2, 3), torch.ones(2, 3))\n"
              "with fwAD.dual_level():\n    _j = fwAD.unpack_dual(torch.sin(fwAD.make_dual(torch.ones(3), torch.ones(3)))).tangent\n"
              "from torch.nn.attention import sdpa_kernel, SDPBackend\n_q = torch.randn(1, 2, 4, 8)\nwith sdpa_kernel(SDPBackend.MATH):\n"
              "    _j = torch.nn.functional.scaled_dot_product_attention(_q, _q, _q, is_causal=True)\n"
              "_j = torch.utils.checkpoint.checkpoint(torch.sin, torch.ones(3, requires_grad=True), use_reentrant=False)\n"
              "def _twice(t: torch.Tensor) -> torch.Tensor:\n    return t * 2\n_j = torch.jit.script(_twice)(torch.ones(2))\n"
              "_j = torch.compile(lambda t: t * 2, backend='eager')(torch.ones(3))\n"
              # a thread that ends within its cell; PyTorch 2's device preamble, and a device block left open
              # (red team 15: torch's default-device mode read as a hook flagged the notebook)
              "import threading\n_th = threading.Thread(target=lambda: None)\n_th.start()\n_th.join()\n"
              "torch.set_default_device('cuda' if torch.cuda.is_available() else 'cpu')\n"
              "torch.device('cpu').__enter__()\n"
              # red team 16: the GPU clean-up, memory measured, a signature read (inspect reads the function's
              # __code__ for the student: a library's function or the student's own is fine), the re-run guard
              "import gc, tracemalloc, inspect\ngc.collect()\ntracemalloc.start()\n_m = tracemalloc.get_traced_memory()\n"
              "tracemalloc.stop()\n_s = inspect.signature(torch.einsum), inspect.signature(_twice)\n"
              "if 'cache' not in globals():\n    cache = {}\n"
              # logging finds its caller with logging.currentframe(): logging's own request, not the student's
              "import logging\nlogging.basicConfig(level=logging.DEBUG)\nlogging.getLogger('answers').info('hello')\n")
    ctx, cells = run_notebook(tmp_path, [(SETUP, "setup", "locked"), (honest, "a1", "student"),
                                         ("assert x == 1", "t1", "test"), ("raise ValueError('a slip')", "a2", "student"),
                                         ("assert x == 1", "t2", "test"),
                                         # torch's global switches left on by an answer are off again in the
                                         # next test cell: no later part is graded under them
                                         ("torch.set_grad_enabled(False)\ntorch.use_deterministic_algorithms(True)",
                                          "a3", "student"),
                                         ("assert torch.is_grad_enabled()\n"
                                          "assert not torch.are_deterministic_algorithms_enabled()\n"
                                          "assert torch._C._len_torch_function_stack() == 0", "t3", "test")])
    assert ctx.tampered == [] and ctx.skipped_tests == [], ctx.tampered
    assert not [o for o in cells["a1"].outputs if o.get("output_type") == "error"], cells["a1"].outputs  # all of it ran
    assert not cells["t1"].outputs and not cells["t2"].outputs and not cells["t3"].outputs, cells["t3"].outputs


@pytest.mark.slow
def test_tags_skip_no_cell_and_printed_history_holds_no_test(tmp_path):
    """nbclient skips cells tagged "skip-execution" (nbgrader then scores a test cell that never ran as passed:
    an empty notebook got full marks); a student cell printing `In` or linecache after a test cell ran finds
    none of the test's lines (the feedback would show them)."""
    leak = ("import linecache\nprint(In)\nprint(_ih)\n"
            "print([''.join(v[2]) for k, v in list(linecache.cache.items()) if 'ipykernel' in k and len(v) > 2])")
    ctx, cells = run_notebook(tmp_path, [(SETUP, "setup", "locked"), ("answer = 2", "a1", "student"),
                                         ("assert answer == 1, 'wrong'  # hidden-line-xyz", "t1", "test"),
                                         (leak, "a2", "student")],
                              tags={"t1": ["skip-execution", "raises-exception"], "a1": ["skip-execution"]})
    assert cells["t1"].outputs and cells["t1"].outputs[-1]["ename"] == "AssertionError", cells["t1"].outputs
    printed = "".join(o.get("text", "") for o in cells["a2"].outputs)
    assert "answer = 2" in printed and "hidden-line-xyz" not in printed, printed


@pytest.mark.slow
def test_a_test_cells_source_is_not_in_linecache_while_it_runs(tmp_path):
    """White-box 9: an answer that a test calls read the running test's lines from linecache (IPython puts a
    cell's source there when it compiles it); the audit hook now drops a grader cell's source as it starts."""
    spy = ("seen = []\ndef answer():\n    cache = __import__('sys').modules['line' + 'cache'].cache\n"
           "    seen.extend(''.join(v[2]) for k, v in list(cache.items()) if 'ipykernel' in k and len(v) > 2)\n    return 1")
    ctx, cells = run_notebook(tmp_path, [(SETUP, "setup", "locked"), (spy, "a1", "student"),
                                         ("assert answer() == 1  # hidden-line-xyz", "t1", "test"),
                                         ("print('own-line-abc', seen)", "a2", "student")])
    printed = "".join(o.get("text", "") for o in cells["a2"].outputs)
    assert "own-line-abc" in printed and "hidden-line-xyz" not in printed, printed
    assert not cells["t1"].outputs, cells["t1"].outputs


@pytest.mark.slow
def test_a_function_that_leaves_a_torch_setting_changed_fails_the_test_that_called_it(tmp_path):
    """Red team 9: a function turning on the flush-denormal mode (or another process-wide setting) and leaving
    it so. The same call at the top of a cell is put back before the next test cell and costs nothing. Round 30: the
    number of threads (back to the count the kernel started with, not a fixed one) and the print options too."""
    answers = ("start = torch.get_num_threads()\n"
               "torch.set_default_dtype(torch.float64)\ntorch.set_float32_matmul_precision('medium')\n"
               "torch.set_num_threads(start + 6)\ntorch.set_printoptions(precision=2, sci_mode=True)\n"
               "def f(x):\n    torch.set_flush_denormal(True)\n    return x\n"
               "def g(x):\n    with torch.no_grad():\n        return x * 2\n"
               "def h(x):\n    torch.set_num_threads(start + 4)\n    return x\n"
               "def p(x):\n    torch.set_printoptions(linewidth=200)\n    return x\n")
    ctx, cells = run_notebook(tmp_path, [(SETUP, "setup", "locked"), (answers, "a1", "student"),
                                         ("assert torch.get_default_dtype() == torch.float32\n"
                                          "assert torch.get_float32_matmul_precision() == 'highest'\n"
                                          "assert torch.get_num_threads() == start\n"
                                          "o = torch._tensor_str.PRINT_OPTS\n"
                                          "assert (o.precision, o.sci_mode, o.linewidth) == (4, None, 80)\n"
                                          "assert g(torch.ones(1)).item() == 2", "t1", "test"),
                                         ("assert f(torch.ones(1)).item() == 1", "t2", "test"),
                                         ("assert float((torch.tensor([2e-38]) / 4)[0]) != 0", "t3", "test"),
                                         ("assert h(torch.ones(1)).item() == 1", "t4", "test"),
                                         ("assert torch.get_num_threads() == start\nassert p(1) == 1", "t5", "test"),
                                         ("assert torch._tensor_str.PRINT_OPTS.linewidth == 80", "t6", "test")])
    assert ctx.tampered == [], ctx.tampered
    for gid in ("t1", "t3", "t6"):
        assert not cells[gid].outputs, (gid, cells[gid].outputs)
    for gid, named in (("t2", "the flush-denormal mode (torch.set_flush_denormal)"),
                       ("t4", "the number of threads (torch.set_num_threads)"),
                       ("t5", "the print options (torch.set_printoptions)")):
        assert cells[gid].outputs[0]["ename"] == "GlobalSettings", (gid, cells[gid].outputs)
        assert named in cells[gid].outputs[0]["evalue"], (gid, cells[gid].outputs)
    assert ctx.settings_changed == [
        "test cell t2 failed: the answers it ran changed the flush-denormal mode (torch.set_flush_denormal)",
        "test cell t4 failed: the answers it ran changed the number of threads (torch.set_num_threads)",
        "test cell t5 failed: the answers it ran changed the print options (torch.set_printoptions)"]


@pytest.mark.slow
def test_a_function_that_sets_the_default_dtype_and_puts_it_back_is_graded_on_its_results(tmp_path):
    """Round 30: torch.set_default_dtype rebinds torch.Storage in torch's module dict, so a function that set the dtype
    and put it back while a hidden test ran (leaving torch's settings as it found them) was flagged as replacing a name
    of torch. torch.Storage now lives outside the dict (guard.FUNCTORCH_PRELOAD): that answer is graded on its results,
    torch.Storage still follows the default dtype, and round 28's torch.layer_norm replaced and put back during the
    test is still flagged when the same call also sets the dtype and puts it back."""
    attack = load_script("tests/redteam/round28/hostile/lead_just_in_time.py")
    set_and_restore = "    torch.set_default_dtype(torch.float64)\n    torch.set_default_dtype(torch.float32)\n"
    honest = ("import torch\ndef f(x):\n    old = torch.get_default_dtype()\n    torch.set_default_dtype(torch.float64)\n"
              "    try:\n        return (x * torch.tensor(2.0)).to(old)\n    finally:\n        torch.set_default_dtype(old)\n")
    follows = ("torch.set_default_dtype(torch.float64)\nassert torch.Storage is torch.DoubleStorage\n"
               "torch.set_default_dtype(torch.float32)\nassert torch.Storage is torch.FloatStorage\n")
    wrong, _ = attack.CASES["torch name read by torch"]
    wrong = wrong.replace("def f(x):\n", "def f(x):\n" + set_and_restore)
    assert set_and_restore in wrong
    helpers = ("import torch", "setup", "locked"), (attack.plain.cell_source(), "grading_helpers", "locked")
    ctx, cells = run_notebook(tmp_path, [*helpers, (honest, "answer", "student"),
                                         (attack.TEST.format(want="torch.full((3,), 2.0)"), "t1", "test"),
                                         (follows, "after", "student")], timeout=300)
    assert ctx.tampered == [] and ctx.settings_changed == [], (ctx.tampered, ctx.settings_changed)
    assert not cells["t1"].outputs and not cells["after"].outputs, (cells["t1"].outputs, cells["after"].outputs)
    ctx, cells = run_notebook(tmp_path / "wrong", [*helpers, (wrong, "answer", "student"),
                                                   (attack.TEST.format(want="F.layer_norm(torch.arange(3.0), (3,))"),
                                                    "t1", "test")], timeout=300)
    assert ctx.tampered and "t1" in ctx.skipped_tests, ctx.tampered


# ----------------------------------------------------------------------------- the hook's own footing (red team 23)
# Attacks on what the audit hook and the grader's requests call, rather than on the tests: each replaces, shadows or
# imitates something the grader's in-kernel code looked up or trusted when an event came, so that a frame reader the
# answer made passed for library code, or the record of its read was emptied. The hidden line calls the reader as
# the answer's function, so that the hidden lines' frame is its caller. A cheap kernel (no torch) runs each.
PEEK = ("import sys\n\ndef peek(v):\n    f = sys._getframe(1)\n    while f is not None and 'expected' not in f.f_locals:\n"
        "        f = f.f_back\n    return None if f is None else f.f_locals['expected']\n")
PLAIN_SETUP = "import os, sys\nx = 1"
FRAME_TEST = "assert callable(f)\n### BEGIN HIDDEN TESTS\nexpected = 42\nassert f(1) == expected\n### END HIDDEN TESTS"
_MODULE = f"open('mymod.py', 'w').write({PEEK!r})\nsys.path.insert(0, os.getcwd())\n"
# code compiled under an installed module's file name (red team 15's forgery) reads frames as "library" code
_SITE = "import sysconfig\n_site = sysconfig.get_paths()['purelib'] + '/torch/_mine.py'\n_ns = {}\n"
FOOTING_ATTACKS = {
    # os.path.realpath, looked up when an event came: patched, it told the hook that a module the answer wrote was
    # installed
    "realpath": ("import posixpath\n_real = posixpath.realpath\n"
                 "posixpath.realpath = lambda p, *a, **k: os.__file__ if 'mymod' in str(p) else _real(p, *a, **k)\n"
                 + _MODULE + "import mymod\nposixpath.realpath = _real\nf = mymod.peek\n"),
    # the hook's bare `type(...)` and `isinstance(...)` were looked up in the notebook's namespace before the builtins
    "shadowed_builtins": (_MODULE + "type = lambda *a: None\nisinstance = lambda *a: False\nimport mymod\n"
                          "del type, isinstance\nf = mymod.peek\n"),
    # types.CodeType, looked up when an event came: the module's code was no code to the hook (loaded from a file
    # not named .py and with no compiled copy to look for, so that no read of a module file reports it)
    "codetype": ("import types, importlib.util, importlib.machinery\n_code = types.CodeType\n"
                 "sys.implementation.cache_tag = None\n"
                 f"open('mymod.txt', 'w').write({PEEK!r})\n"
                 "_loader = importlib.machinery.SourceFileLoader('mymod', os.path.abspath('mymod.txt'))\n"
                 "_spec = importlib.util.spec_from_loader('mymod', _loader)\n_m = importlib.util.module_from_spec(_spec)\n"
                 "types.CodeType = int\n_spec.loader.exec_module(_m)\ntypes.CodeType = _code\nf = _m.peek\n"),
    # os.fsdecode, looked up when an event came: the forged file name read as one of the "<...>" names
    "fsdecode": ("_fs = os.fsdecode\nos.fsdecode = lambda p: '<x>'\n" + _SITE +
                 f"exec(compile({PEEK!r}, _site, 'exec'), _ns)\nos.fsdecode = _fs\nf = _ns['peek']\n"),
    # a str subclass as the file name: its own startswith said it was a "<...>" name, to the hook and in co_filename
    "str_subclass_name": (_SITE + "class _Name(str):\n    def startswith(self, *a, **k):\n        return True\n"
                          f"exec(compile({PEEK!r}, _Name(_site), 'exec'), _ns)\nf = _ns['peek']\n"),
    # exec of a string: its code is named "<string>", like namedtuple's, and the hook passed over such frames
    "exec_text": f"_ns = {{}}\nexec({PEEK!r}, _ns)\nf = _ns['peek']\n",
    # the gate's secret compared with ==, which a str subclass answers: a request that emptied the hook's record
    "spoofed_secret": ("class _Any(str):\n    def __eq__(self, other):\n        return True\n    __hash__ = str.__hash__\n"
                       + PEEK.replace("def peek(v)", "def _peek(v)") + "def f(v):\n    value = _peek(v)\n"
                       "    sys.audit('attnlab.probe', _Any('k'), {'take': True})\n    return value\n"),
}


@pytest.mark.slow
@pytest.mark.parametrize("attack", sorted(FOOTING_ATTACKS))
def test_what_the_hook_calls_cannot_be_replaced_by_an_answer(tmp_path, attack):
    """Each attack made the hook's own code misread an event (on the guard before red team 23 none of these was
    flagged, and the reader took the hidden lines' values); the answer's cell is flagged now."""
    ctx, cells = run_notebook(tmp_path, [(PLAIN_SETUP, "setup", "locked"), (FOOTING_ATTACKS[attack], "a1", "student"),
                                         (FRAME_TEST, "t1", "test")])
    assert any("cell a1" in reason for reason in ctx.tampered), (ctx.tampered, cells["a1"].outputs)


# red team 23's hostile student (tests/redteam/round23/hostile/FINDINGS.md): each attack's answers are wrong, and
# each kept the points of a hidden test, or read the tests' text, past both the runtime guard and the static scan:
# the first pass on 207b073 (signal handlers handed the tests' frames; IPython's formatter and transformer classes
# rewrote the probe's answer and the test cells; replaced builtins, a thread class and a replaced linecache blinded
# the probe or kept the tests' text; code timeit compiled was nobody's), the second on the first fixes (the signal
# gate's closure, an int subclass or a library's object as the handler, instance attributes of IPython's
# transformer manager and compiler, a dict subclass the probe iterated, a stand-in linecache module, a cell's file
# name compiled by the answer)
ROUND23_ATTACKS = ("F1_signal_frame_read", "F1b_signal_rewrites_hook_state", "F2_formatter_replays_probe",
                   "F3_fake_builtins_vars", "F4_timeit_code_is_nobodys", "F5_linecache_keeps_test_source",
                   "F6_leaked_secret_trust_request", "F7_transformer_class_rewrites_hidden_lines",
                   "F8_probe_runs_the_answers_code", "G1_gate_closure_raw_setter", "G1b_gate_closure_rewrite_trusted",
                   "G1c_gate_closure_empties_record", "G2_int_subclass_handler", "G3_installed_bound_method_handler",
                   "G4_resigned_formatter_answers", "G6_transformer_instance_attribute",
                   "G9_probe_iterates_a_dict_subclass", "G10_linecache_standin_module",
                   "G10b_linecache_standin_answer_reads_test", "G10c_standin_secret_then_trust",
                   "G11_ipykernel_file_name_is_the_running_cells", "G11b_locked_cells_file_name",
                   "G12_compiler_instance_ast_parse",
                   # third pass: the running cell's request read while it runs (kernel.get_parent(), the display
                   # hook's record of the cell) held the hidden lines and the secret; with the secret, an answer
                   # emptied the hook's record, ran its own lines as the grader's, or stole the signing key
                   "H4_parent_message_holds_the_test_cell", "H4c_done_line_secret_then_forged_G6",
                   "H5_secret_then_probe_take_empties_record", "H7_exec_result_raw_cell",
                   "H8_secret_runs_own_hidden_lines", "H10_stolen_key_signs_forged_probe_answers")


@pytest.mark.slow
@pytest.mark.parametrize("attack", ROUND23_ATTACKS)
def test_red_team_23s_attacks_on_what_the_kernel_side_trusts_keep_no_points(tmp_path, attack):
    """The attack is flagged, or no test cell of it with hidden lines passes (its answers are wrong; a flagged
    notebook's later tests are not graded), and nothing of a test cell's hidden lines or the probe's secret reaches
    what a student cell shows (a failing test cell's own traceback shows its line to the instructor; the feedback
    reduces it, test_hidden_namespace)."""
    attacks = load_script("tests/redteam/round23/hostile/attacks.py")
    cells_in = attacks.ATTACKS[attack]
    ctx, cells = run_notebook(tmp_path, [(attacks.SETUP, "setup", "locked"), *cells_in])
    tests = [gid for source, gid, kind in cells_in if kind == "test" and "### BEGIN HIDDEN TESTS" in source]
    passed = [gid for gid in tests if not any(o.get("output_type") == "error" for o in cells[gid].outputs)]
    assert ctx.tampered or passed == [], (passed, ctx.tampered)
    shown = json.dumps([cells[gid].outputs for _, gid, kind in cells_in if kind == "student"])
    assert "hidden-" not in shown and "LEAKED ['" not in shown and "'gate':" not in shown, shown[:2000]
    # G1 (the gate has no closure now), H4 and H7 (the cell's request holds no hidden line now), and the attacks
    # that used the gate's secret read from the running cell's request (no request holds it since red team 24): the
    # attack fails
    assert ctx.tampered or attack.startswith(("G1", "H4_", "H7_", "H4c_", "H5_", "H8_", "H10_", "G10c_")), attack


ROUND24_ATTACKS = ("I1_thread_trust_with_the_running_requests_secret",
                   "I2_lingering_text_thread_rebinds_a_helper_during_a_locked_cell",
                   "I3_finalizer_in_the_graders_probe", "I4_timer_of_exec_rebinds_a_helper_during_a_locked_cell",
                   "I5_gc_callback_rebinds_a_helper", "I6_collector_turned_back_on_inside_a_test")


@pytest.mark.slow
@pytest.mark.parametrize("attack", ROUND24_ATTACKS)
def test_red_team_24s_code_with_no_student_frame_keeps_no_points(tmp_path, attack):
    """Code an answer leaves to run later with no frame of a student cell on its stack: a thread whose target is
    exec, a threading.Timer of exec, a finalizer the garbage collector calls in the middle of the grader's code, a
    collector callback. On 5cc18c2's guard I1, I2 and I3 passed hidden tests unflagged at runtime (the running
    request held the gate's secret, which such code could use; a thread made from text was nobody's). Now no
    request holds the secret (each carries a one-time tag), and such threads, timers, finalizers and callbacks are
    flagged: no hidden test of the attack passes, and every attack that leaves something running is flagged."""
    attacks = load_script("tests/redteam/round24/attacks.py")
    cells_in = attacks.ATTACKS[attack]
    ctx, cells = run_notebook(tmp_path, [(attacks.SETUP, "setup", "locked"), *cells_in])
    tests = [gid for _, gid, kind in cells_in if kind == "test"]
    passed = [gid for gid in tests if not any(o.get("output_type") == "error" for o in cells[gid].outputs)]
    assert passed == [], (passed, ctx.tampered)
    if not attack.startswith("I3"):   # I3's finalizer fires when the collector runs: flagged when it sends a request
        assert ctx.tampered, attack


ROUND24_HOSTILE = ("J1_collector_callback_spends_the_probes_take", "J2_hook_record_through_the_probes_student_code",
                   "J3_a_change_made_while_a_locked_cell_is_of_record_is_adopted",
                   "J4_gate_secret_from_the_hooks_frame_then_a_forged_trust",
                   "J5_hidden_lines_read_from_the_stage_request", "J6_staged_tests_rewritten_to_run_nothing")


@pytest.mark.slow
@pytest.mark.parametrize("attack", ROUND24_HOSTILE)
def test_red_team_24s_collector_callbacks_keep_no_points_and_read_nothing(tmp_path, attack):
    """Round 24's hostile pass: a weakref.proxy callback, functools.partial(exec, text, globals), run by the garbage
    collector in the middle of the grader's own requests with no frame of a student cell on the stack. On ec9afe5
    each kept both hidden tests unflagged: it spent the probe's tag first and emptied the hook's record (J1), took
    the record through the probe's locals (J2), patched builtins while a locked cell was of record (J3), read the
    gate's secret and signing key from the hook's frame (J4), read the hidden lines from the stage request (J5),
    rewrote the staged tests to run nothing (J6, 16/16 on chapter 2 for answers returning None). Now the collector
    is off while the grader's code runs, code made from text gets no frame and no object of the interpreter's, and a
    spent probe tag is reported in the grader's own box: no hidden test passes, and nothing of them is shown."""
    attacks = load_script("tests/redteam/round24/hostile/attacks.py")
    cells_in = attacks.ATTACKS[attack]
    ctx, cells = run_notebook(tmp_path, [(attacks.SETUP, "setup", "locked"), *cells_in])
    tests = [gid for source, gid, kind in cells_in if kind == "test" and "### BEGIN HIDDEN TESTS" in source]
    passed = [gid for gid in tests if not any(o.get("output_type") == "error" for o in cells[gid].outputs)]
    assert passed == [], (passed, ctx.tampered)
    shown = json.dumps([cells[gid].outputs for _, gid, kind in cells_in if kind == "student"])
    assert "hidden-" not in shown and "assert _close(f(" not in shown and "32 chars" not in shown, shown[:2000]


ROUND27_HOSTILE = ("K1", "K1-plain", "K1b", "K2", "ch02", "K3", "I6-evaded")


@pytest.mark.slow
@pytest.mark.parametrize("attack", ROUND27_HOSTILE)
def test_red_team_27s_kernels_for_torchs_operators_and_the_collector_keep_no_points(tmp_path, attack):
    """Round 27's hostile pass (tests/redteam/round27/hostile/): a Python kernel for aten::count_nonzero, which
    _close counts with (K1; K1-plain spells torch.library by name), for add_ and logical_not_, which _scribble and
    _owned write with (K1b), for aten::equal and aten::clone alive only while the answer's results were (K2), and
    that read the hidden test's expected masks into the next cell (K3), each reached as torch.backends.mps._Library;
    and a collector turned on inside a test and off again by its own callback (I6-evaded). On e518d5d every hidden
    test passed and nothing was flagged. Now a library for aten's operators is refused and recorded, and gc.enable
    inside a test leaves the collector off and is recorded."""
    attacks = load_script("tests/redteam/round27/hostile/attacks.py")
    make, _ = attacks.ATTACKS[attack]
    cells_in = make()
    ctx, cells = run_notebook(tmp_path, cells_in, timeout=300)
    assert ctx.tampered, "not flagged"
    # the answers the attack wrote (the chapter's other answer cells hold the model answers)
    attacked = ({"causal_mask", "padding_mask"} if attack == "K3" else set(attacks.CH02_ATTACK) if attack == "ch02"
                else {gid for _, gid, kind in cells_in if kind == "student"})
    # the hidden tests of the attacked parts (K3 leaves chapter 2's first parts with the model answers)
    hidden = [gid for source, gid, kind in cells_in if kind == "test" and "### BEGIN HIDDEN TESTS" in source
              and (not gid.startswith("test_") or gid.removeprefix("test_") in attacked)]
    passed = [gid for gid in hidden if not any(o.get("output_type") == "error" for o in cells[gid].outputs)]
    assert hidden and passed == [], (hidden, passed, ctx.tampered)
    shown = json.dumps([cells[gid].outputs for gid in attacked if gid in cells])
    # K3's next cell prints what its kernel read: nothing, or it does not run (the notebook is flagged)
    assert "expected values of the hidden test" not in shown or "0 expected values of the hidden test" in shown, shown


@pytest.mark.slow
def test_a_python_kernel_seen_through_the_python_dispatcher_only_while_a_result_lives_checks_nothing(tmp_path):
    """A sibling of round 27's K2 that registers nothing in the dispatcher: a Python kernel kept by the operator itself
    (py_impl), which only torch's Python dispatcher runs, and the Python dispatcher turned on by an object that lives
    as long as the answer's result. No check between cells sees either; the helpers refuse to compare while this
    thread's dispatch keys differ from those before any student code."""
    answer = ("import torch\n_k = torch._C.DispatchKey\n"
              "torch.ops.aten.count_nonzero.default.py_impl(_k.CPU)(lambda self: torch.zeros((), dtype=torch.int64))\n"
              "def f(x):\n    result = x * 0\n    result.__dict__['_on'] = torch._C._EnablePythonDispatcher()\n"
              "    return result\n")
    # as hidden tests are written: the result held in a function's local while it is checked, gone at its return
    test = ("import torch\nassert callable(f)\n### BEGIN HIDDEN TESTS\ndef _check():\n    got = f(torch.ones(3))\n"
            "    assert _close(_tensor(got, 'f'), torch.ones(3)) is None, 'hidden-1'\n_check()\n### END HIDDEN TESTS")
    attacks = load_script("tests/redteam/round27/hostile/attacks.py")
    cells_in = [("import torch", "setup", "locked"), (attacks.HELP, "grading_helpers", "locked"),
                (answer, "answer", "student"), (test, "t1", "test")]
    ctx, cells = run_notebook(tmp_path, cells_in, timeout=300)
    errors = [o for o in cells["t1"].outputs if o.get("output_type") == "error"]
    # since round 28 the dispatcher is refused where it is asked for (before, the helpers' dispatch-key check caught
    # it at the comparison)
    assert errors and any("turns on torch's Python dispatcher" in r for r in ctx.tampered), (errors, ctx.tampered)


@pytest.mark.slow
def test_an_honest_answer_that_collects_garbage_inside_a_test_is_graded_as_usual(tmp_path):
    """gc.collect and gc.enable are the hook's gates now (red team 27): an answer that frees memory while a test
    calls it, with or without the argument, is not flagged and gets its points; the collection itself waits for the
    next student cell."""
    answer = ("import gc\ndef f(v):\n    gc.collect()\n    gc.collect(generation=1)\n    gc.collect(0)\n"
              "    return v + 1\n_n = gc.collect()\n")
    test = "assert f(1) == 2\n### BEGIN HIDDEN TESTS\nassert f(2) == 3, 'hidden'\n### END HIDDEN TESTS"
    ctx, cells = run_notebook(tmp_path, [(SETUP, "setup", "locked"), (answer, "a1", "student"), (test, "t1", "test")])
    assert ctx.tampered == [] and not any(o.get("output_type") == "error" for o in cells["t1"].outputs), (
        ctx.tampered, cells["t1"].outputs)


@pytest.mark.slow
def test_a_module_attribute_replaced_just_in_time_is_not_what_the_grader_reads(tmp_path):
    """Found after red team 27's hostile pass (tests/redteam/round27/hostile/lead_module_attribute.py): a callback the
    answer left on its result, run by reference counting when the hidden test drops that result, replaced torch.add
    just before the expected value was computed with it, and the replacement put the original back after one call:
    the wrong answer kept its point and nothing was flagged (on 10e09e3). The grader's names and its functions'
    globals now hold copies of torch (and math, ...) as they were before any student code."""
    attack = load_script("tests/redteam/round27/hostile/lead_module_attribute.py")
    answer, test = attack.CASES["torch.add"]
    cells_in = [("import torch", "setup", "locked"), (attack.plain.cell_source(), "grading_helpers", "locked"),
                (answer, "answer", "student"), (test, "t1", "test")]
    ctx, cells = run_notebook(tmp_path, cells_in, timeout=300)
    assert any(o.get("output_type") == "error" for o in cells["t1"].outputs), ctx.tampered


@pytest.mark.slow
def test_a_global_named_like_a_builtin_never_receives_the_graders_requests(tmp_path):
    """The grader's requests used to call `__import__('sys')`, a name: a notebook global `__import__` received the
    test cell's gate request, with the secret and the hidden lines, which it printed (they reached the feedback) and
    passed on. The requests now reach the hook without a name: the global is never called, the hidden lines run
    and fail as they should, and nothing is printed."""
    answer = ("import sys as _s\nclass _Sys:\n    def audit(self, event, *args):\n"
              "        print('INTERCEPTED', event, args)\n        return _s.audit(event, *args)\n"
              "    def __getattr__(self, name):\n        print('INTERCEPTED', name)\n        return getattr(_s, name)\n"
              "def __import__(name, *a, **k):\n    return _Sys() if name == 'sys' else _s.modules[name]\n"
              "def f(v):\n    return 0\n")
    test = "assert f(1) == 0\n### BEGIN HIDDEN TESTS\nassert f(2) == 99, 'the hidden check ran'\n### END HIDDEN TESTS"
    ctx, cells = run_notebook(tmp_path, [(PLAIN_SETUP, "setup", "locked"), (answer, "a1", "student"), (test, "t1", "test"),
                                         ("assert f(3) == 0", "t2", "test")])
    shown = json.dumps([c.outputs for c in cells.values()])
    assert "INTERCEPTED" not in shown and "f(2) == 99" not in shown, shown
    assert [o.get("evalue") for o in cells["t1"].outputs if o.get("output_type") == "error"] == ["the hidden check ran"]
    assert not [o for o in cells["t2"].outputs if o.get("output_type") == "error"], cells["t2"].outputs
    assert ctx.tampered == [], ctx.tampered


@pytest.mark.slow
def test_torch_calls_that_keep_their_callers_stack_are_not_flagged(tmp_path):
    """Round 22: torch.manual_seed (and torch.seed) hand each device backend's lazy seeding the caller's stack
    (traceback.format_stack), and anomaly mode keeps each forward operation's stack (torch.fx.traceback): called by
    an answer while a test ran, that read of the tests' frames flagged an honest, if wrong, "reproducible" seed, or
    a debugging anomaly check, as tampering, and every later part went to manual review. A seed is an ordinary
    mistake: the test that called it fails (here, as the hidden tests' check of the generator would); the anomaly
    check costs nothing."""
    answers = ("def f(x):\n    torch.manual_seed(0)\n    return x\n"
               "def g(x):\n    torch.seed()\n    return x\n"
               "def h(x):\n    with torch.autograd.detect_anomaly():\n        y = (3 * x).sum()\n"
               "        (grad,) = torch.autograd.grad(y, x)\n    return grad\n")
    check = ("assert x == 1\n### BEGIN HIDDEN TESTS\n_hidden_before = torch.random.get_rng_state()\n{call}\n"
             "assert torch.equal(torch.random.get_rng_state(), _hidden_before), 'the global generator changed'\n"
             "### END HIDDEN TESTS")
    anomaly = "assert h(torch.ones(2, requires_grad=True)).tolist() == [3.0, 3.0]"
    ctx, cells = run_notebook(tmp_path, [(SETUP, "setup", "locked"), (answers, "a1", "student"),
                                         (check.format(call="f(torch.ones(1))"), "t1", "test"),
                                         (check.format(call="g(torch.ones(1))"), "t2", "test"),
                                         (check.format(call=anomaly), "t3", "test"),
                                         ("assert x == 1", "t4", "test")])
    assert ctx.tampered == [] and ctx.skipped_tests == [] and ctx.stopped is None, (ctx.tampered, ctx.stopped)
    for gid in ("t1", "t2"):
        assert [o.get("evalue") for o in cells[gid].outputs] == ["the global generator changed"], cells[gid].outputs
    assert not [o for o in cells["t3"].outputs if o.get("output_type") == "error"], cells["t3"].outputs
    assert not cells["t4"].outputs, cells["t4"].outputs


BREAKS_THE_KERNEL = "import builtins\n_real = builtins.type\nbuiltins.type = lambda *a: _real(*a)"
PATCHES_TORCH = "torch.isclose = lambda *a, **k: True"


@pytest.mark.parametrize("patch, static, reason", [
    # round 6: a replaced builtins.type makes every request fail inside the kernel, which then never answers;
    # the grader used to wait for the check until the notebook's 600 s limit
    (BREAKS_THE_KERNEL, None, "the tamper guard got no answer from the kernel after this cell"),
    (BREAKS_THE_KERNEL, "line 3: assigns to builtins.type", "the tamper guard got no answer from the kernel after this cell"),
    # found by the static scan at the end of the cell: the one check after it names what changed
    (PATCHES_TORCH, "line 1: assigns to torch.isclose", "torch.isclose changed while the cell ran"),
])
def test_nothing_runs_after_a_flag_but_the_check_that_names_the_change(tmp_path, patch, static, reason):
    slow = "import time\ntime.sleep(120)\ny = 3"
    started = time.monotonic()
    ctx, cells = run_notebook(tmp_path, [(SETUP, "setup", "locked"), (patch, "a1", "student"), (slow, "a2", "student"),
                                         ("assert x == 1", "t2", "test"), ("z = 4", "tail", "locked")],
                              static={"a1": [f"cell a1, {static}"]} if static else None, probe_timeout=5)
    assert time.monotonic() - started < 60, "a cell after the flag ran, or a check waited past probe_timeout"
    assert any(r.startswith("cell a1: ") and reason in r for r in ctx.tampered), ctx.tampered
    assert not static or f"cell a1, {static}" in ctx.tampered
    assert [o["ename"] for o in cells["a2"].outputs] == ["NotRun"] and [o["ename"] for o in cells["tail"].outputs] == ["NotRun"]
    assert ctx.skipped_tests == ["t2"] and cells["t2"].outputs[0]["ename"] == "NotGraded"


@pytest.mark.slow
def test_torch_compile_and_a_dispatch_mode_are_not_flagged(tmp_path):
    """Importing torch._dynamo (torch.compile, the first call of a dispatch mode) wraps torch.manual_seed,
    and compiling wraps nn.Module.__init__/__setstate__: torch's own wrappers of the same functions."""
    honest = ("from torch.utils._python_dispatch import TorchDispatchMode\n"
              "class Count(TorchDispatchMode):\n    calls = 0\n"
              "    def __torch_dispatch__(self, f, t, a=(), k=None):\n        Count.calls += 1\n"
              "        return f(*a, **(k or {}))\n"
              "with Count():\n    torch.ones(2) + 1\n"
              "double = torch.compile(lambda v: v * 2, backend='eager')\n"
              "assert double(torch.ones(3)).tolist() == [2.0, 2.0, 2.0]\n"
              "layer = torch.nn.Linear(2, 2)\n")
    ctx, cells = run_notebook(tmp_path, [(SETUP, "setup", "locked"), (honest, "a1", "student"),
                                         ("assert x == 1", "t1", "test")])
    assert ctx.tampered == [] and ctx.skipped_tests == [], ctx.tampered
    assert not cells["a1"].outputs and not cells["t1"].outputs, cells["a1"].outputs


@pytest.mark.slow
def test_kernel_runs_in_a_copy_of_the_submission_only(tmp_path):
    ctx, cells = run_notebook(tmp_path, [(SETUP, "setup", "locked"), (
        "print(sorted(n for n in os.listdir('.') if not n.startswith('.')), open('exercises.ipynb').read())",
        "a1", "student")])
    printed = "".join(o.get("text", "") for o in cells["a1"].outputs)
    assert printed == "['exercises.ipynb'] {}\n", printed
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == []  # nbgrader's folder is not the kernel's
    assert not (tmp_path / "kernel" / "s").exists()  # the copy is removed after the run


@pytest.mark.slow
def test_a_crash_is_replaced_by_an_error_and_the_rest_is_graded(tmp_path):
    ctx, cells = run_notebook(tmp_path, [
        (SETUP, "setup", "locked"), ("a = 1", "a1", "student"), ("assert a == 1", "t1", "test"),
        ("import signal\nos.kill(os.getpid(), signal.SIGSEGV)\nb = 2", "a2", "student"), ("assert b == 2", "t2", "test"),
        ("c = 3", "a3", "student"), ("assert c == 3", "t3", "test"),
        ("os._exit(4)", "a4", "student"), ("assert a + c == 4", "t4", "test")])
    assert ctx.crashed == [
        "cell a2 crashed the kernel (killed by signal 11); it was replaced by an error and the notebook was run again from the start",
        "cell a4 crashed the kernel (exit status 4); it was replaced by an error and the notebook was run again from the start"]
    assert ctx.runs == 3 and ctx.stopped is None and ctx.not_run == []
    assert cells["a2"].outputs[-1]["evalue"] == crash_message("killed by signal 11")
    assert cells["a4"].outputs[-1]["evalue"] == crash_message("exit status 4")
    assert not cells["t1"].outputs and not cells["t3"].outputs and not cells["t4"].outputs
    assert cells["t2"].outputs[-1]["ename"] == "NameError"  # b was never defined: only part 2 fails


@pytest.mark.slow
def test_a_cell_filling_the_disk_is_stopped_and_replaced_and_the_rest_is_graded(tmp_path):
    """White-box 9: the sandbox caps each file, not their number; a cell writing file after file into the
    kernel's folder would fill the grader's disk. Past disk_bytes the kernel is stopped, as after a crash."""
    fill = ("import time\nfor i in range(400):\n    with open(f'fill{i}', 'wb') as f:\n        f.write(b'x' * 2**20)\n"
            "    time.sleep(0.02)\nb = 2")
    ctx, cells = run_notebook(tmp_path, [
        (SETUP, "setup", "locked"), ("a = 1", "a1", "student"), ("assert a == 1", "t1", "test"),
        (fill, "a2", "student"), ("assert b == 2", "t2", "test"), ("c = 3", "a3", "student"),
        ("assert a + c == 4", "t3", "test")], disk_bytes=16 * 2**20)
    how = "it wrote more than 16 MiB of files into its folder, the limit of the grader's disk a notebook may use"
    assert ctx.crashed == [f"cell a2 crashed the kernel ({how}); it was replaced by an error and the notebook was "
                           "run again from the start"], ctx.crashed
    assert cells["a2"].outputs[-1]["evalue"] == crash_message(how)
    assert not cells["t1"].outputs and not cells["t3"].outputs and cells["t2"].outputs[-1]["ename"] == "NameError"


@pytest.mark.slow
def test_the_notebook_limit_covers_all_its_runs(tmp_path):
    """Three cells that each swallow the interrupt: each run goes again without one of them. The runs share one
    limit (a helper's notebook with a thread that starved the checks took 757 s under a fresh limit per run)."""
    swallow = "import time\nwhile True:\n    try:\n        time.sleep(0.05)\n    except KeyboardInterrupt:\n        pass"
    started = time.monotonic()
    ctx, cells = run_notebook(tmp_path, [("x = 1", "setup", "locked")] + [  # no torch import: 2 s is the limit
        (swallow, f"a{i}", "student") for i in range(3)] + [("assert x == 1", "t1", "test")],
        timeout=2, interrupt_grace=1, notebook_timeout=12)
    assert time.monotonic() - started < 30
    assert ctx.stopped and "ran past its limit of 12 s" in ctx.stopped, (ctx.stopped, ctx.crashed)
    assert ctx.not_run == ["t1"]


@pytest.mark.slow
def test_a_test_cell_that_crashes_in_student_code_fails_alone(tmp_path):
    ctx, cells = run_notebook(tmp_path, [
        (SETUP, "setup", "locked"), ("def boom():\n    os._exit(9)", "a1", "student"), ("boom()", "t1", "test"),
        ("c = 3", "a2", "student"), ("assert c == 3", "t2", "test")])
    assert ctx.crashed == ["cell t1 crashed the kernel (exit status 9); it was replaced by an error and the notebook "
                           "was run again from the start"] and ctx.runs == 2
    assert cells["t1"].outputs[-1]["evalue"] == crash_message("exit status 9")  # an error output: the test scores 0
    assert not cells["t2"].outputs and ctx.not_run == [] and ctx.stopped is None


@pytest.mark.slow
def test_crashes_beyond_the_restarts_stop_the_notebook(tmp_path):
    ctx, cells = run_notebook(tmp_path, [(SETUP, "setup", "locked"), ("os._exit(1)", "a1", "student"),
                                         ("os._exit(2)", "a2", "student"), ("assert x", "t1", "test")], crash_restarts=1)
    assert ctx.runs == 2 and len(ctx.crashed) == 1
    assert ctx.stopped == "the kernel died in cell a2 (exit status 2)" and ctx.not_run == ["t1"]


@pytest.mark.slow
def test_a_cell_slow_to_stop_after_its_interrupt_still_counts_as_timed_out(tmp_path):
    """A loaded machine makes an interrupted kernel slow to stop: up to ``interrupt_grace`` seconds it
    is "timed out" (graded), not "kept running" (kernel stopped, flagged). Simulated by a cell that
    sleeps after the interrupt for longer than nbgrader's iopub timeout."""
    slow_stop = "import time\ntry:\n    while True:\n        pass\nexcept KeyboardInterrupt:\n    time.sleep(6)\nz = 1"
    ctx, cells = run_notebook(tmp_path, [("x = 1", "setup", "locked"), (slow_stop, "a1", "student"),
                                         ("assert z == 1", "t1", "test")],
                              timeout=3, iopub_timeout=2, interrupt_grace=30)
    assert ctx.timed_out == ["a1"] and ctx.stopped is None, ctx
    assert not cells["t1"].outputs  # the cell went on after the interrupt, as it does on an idle machine


@pytest.mark.slow
def test_a_test_cell_interrupted_at_its_limit_is_replaced_and_the_rest_graded(tmp_path):
    """A slow answer that a test calls is interrupted inside the test cell, where the test's own checks
    (a dispatch mode, say) may be left half done; going on in that kernel once flagged an honest notebook
    for tampering in the next cell. The notebook runs again without that test cell: it alone scores 0."""
    ctx, cells = run_notebook(tmp_path, [
        ("x = 1", "setup", "locked"), ("def slow():\n    while True:\n        pass", "a1", "student"),
        ("slow()", "t1", "test"), ("c = 3", "a2", "student"), ("assert c == 3", "t2", "test")], timeout=3)
    assert ctx.crashed == [f"cell t1 {TEST_INTERRUPTED[1]}; it was replaced by an error and the notebook was run "
                           "again from the start"] and ctx.runs == 2, ctx
    assert cells["t1"].outputs[-1]["ename"] == "CellTimeout"
    assert cells["t1"].outputs[-1]["evalue"] == replaced_message(TEST_INTERRUPTED[1])
    assert not cells["t2"].outputs and ctx.stopped is None and ctx.not_run == [] and ctx.timed_out == []


@pytest.mark.slow
def test_a_cell_that_keeps_running_after_its_interrupt_costs_only_its_own_part(tmp_path):
    """A cell that swallows the interrupt (or sits in one long call into C) stopped the kernel, and every
    later part went ungraded; now the notebook runs again without it, as after a crash."""
    swallow = "import time\nwhile True:\n    try:\n        time.sleep(0.05)\n    except KeyboardInterrupt:\n        pass"
    ctx, cells = run_notebook(tmp_path, [
        ("x = 1", "setup", "locked"), ("a = 1", "a1", "student"), ("assert a == 1", "t1", "test"),
        (swallow, "a2", "student"), ("c = 3", "a3", "student"), ("assert a + c == 4", "t3", "test")],
        timeout=2, iopub_timeout=1, interrupt_grace=2)
    assert ctx.crashed == [f"cell a2 {KEPT_RUNNING[1]}; it was replaced by an error and the notebook was run "
                           "again from the start"] and ctx.runs == 2, ctx
    assert cells["a2"].outputs[-1]["evalue"] == replaced_message(KEPT_RUNNING[1])
    assert not cells["t1"].outputs and not cells["t3"].outputs and ctx.stopped is None and ctx.not_run == []


def test_the_first_reply_waits_for_a_loaded_machine():
    """The kernel_info request after start waited only a cell's timeout; a slow reply then made
    nbgrader fail the whole notebook ("failed" instead of its real outcome)."""
    execute = HardenedExecute(timeout=10, startup_timeout=300)
    assert execute._get_timeout(None) == 300


def test_the_notebooks_own_cells_before_any_answer_wait_for_a_loaded_machine(tmp_path):
    """The setup cell (torch's import) hit a 10 s cell limit on a loaded CI machine: interrupted mid-import,
    the student was flagged and lost every part. The course's own cells before the first cell of the student's
    get the start's limit; every cell from the first answer on, locked or not, gets the cell's limit."""
    slow = "import time\ntime.sleep(3)"
    ctx, cells = run_notebook(tmp_path, [
        (slow, "setup", "locked"), (slow, "grading_helpers", "locked"), ("x = 1", "a1", "student"),
        (slow, "late", "locked"), (slow, "a2", "student"), ("assert x == 1", "t1", "test")],
        timeout=1, startup_timeout=30, interrupt_grace=5)
    assert ctx.timed_out == ["late", "a2"], ctx
    assert not any(o.get("output_type") == "error" for gid in ("setup", "grading_helpers", "a1", "t1")
                   for o in cells[gid].outputs), cells


# --------------------------------------------------------------------------- whole chapter-2 submissions

def _order() -> list[tuple[str, str]]:
    """(grade id, kind) of every graded or answer cell of the chapter, in notebook order."""
    nb = load(ROOT / "chapters" / CHAPTER / "exercises.ipynb")
    out = []
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if cell["cell_type"] == "code" and meta.get("grade_id"):
            out.append((meta["grade_id"], "student" if meta.get("solution") else "test" if meta.get("grade") else "locked"))
    return out


def _function_cells() -> list[tuple[str, str]]:
    """(answer cell, name of the first function it defines), for answer cells that define one."""
    out = []
    for gid, code in solution_code(CHAPTER).items():
        tree = ast.parse(code)
        names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        if names:
            out.append((gid, names[0]))
    return out


def _defined(code: str) -> set[str]:
    tree = ast.parse(code)
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    names |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return names


def dependents(crashed: list[str]) -> set[str]:
    """Test cells that could need the crashed answer cells: they (or answer cells they use) name what those define."""
    nb = load(ROOT / "solutions" / CHAPTER / "exercises.ipynb")
    sources = {c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"]) for c in nb["cells"]
               if c["cell_type"] == "code" and c["metadata"].get("nbgrader", {}).get("grade_id")}
    answers = solution_code(CHAPTER)
    lost = set().union(*(_defined(answers[a]) for a in crashed))
    changed = True
    while changed:  # answer cells whose code names a lost name are lost too
        changed = False
        for gid, code in answers.items():
            used = {n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name)}
            if used & lost and not _defined(code) <= lost:
                lost |= _defined(code)
                changed = True
    tests = [gid for gid, kind in _order() if kind == "test"]
    return {t for t in tests if {n.id for n in ast.walk(ast.parse(sources[t])) if isinstance(n, ast.Name)} & lost}


def _after(cell: str) -> list[str]:
    order = _order()
    start = [g for g, _ in order].index(cell)
    return [g for g, kind in order[start:] if kind == "test"]


def _attacked(cell: str, code: str, base: str = "solution") -> dict[str, str]:
    return {cell: code + "\n" + (solution_code(CHAPTER)[cell] if base == "solution" else "")}


def _in_function(cell: str, name: str, attack: str) -> dict[str, str]:
    """The model answer of ``cell`` whose function ``name`` runs ``attack`` each time a test calls it."""
    body = "\n".join("    " + line for line in attack.splitlines())
    return {cell: (solution_code(CHAPTER)[cell] + f"\n_orig_{name} = {name}\n"
                   f"def {name}(*args, **kwargs):\n{body}\n    return _orig_{name}(*args, **kwargs)\n")}


POST = "getattr(get_ipython(), \"input_transformers_\" + \"post\").append(lambda l: [\"pass\\n\"] if \"assert\" in \"\".join(l) else l)"
AST_WRAP = ("import ast\nclass _Wrap(ast.NodeTransformer):\n    def visit_Module(self, node):\n"
            "        handler = ast.ExceptHandler(type=ast.Name('BaseException', ast.Load()), name=None, body=[ast.Pass()])\n"
            "        body = [ast.Try(body=node.body or [ast.Pass()], handlers=[handler], orelse=[], finalbody=[])]\n"
            "        return ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))\n"
            "get_ipython().ast_transformers.append(_Wrap())")
# swaps the captured assert_close only while a test cell (a frame that reads _REF) runs
SETPROFILE = ("import sys\n_real = {}\ndef _swap(frame, event, arg):\n"
              "    g = frame.f_globals\n"
              "    if event == 'call' and frame.f_code.co_name == '<module>' and '_REF' in g and 'assert_close' in g['_REF']:\n"
              "        _real.setdefault('ac', g['_REF']['assert_close'])\n"
              "        g['_REF']['assert_close'] = lambda *a, **k: None\n"
              "sys.setprofile(_swap)")
FRAME_READ = ("import inspect\n_caller = inspect.currentframe().f_back\n"
              "_seen = [v for v in list(_caller.f_locals.values()) if type(v).__name__ == 'Tensor']")
TRACEBACK_READ = ("try:\n    raise RuntimeError\nexcept RuntimeError as _e:\n"
                  "    _seen = _e.__traceback__.tb_frame.f_back.f_locals")
GC_SCAN = "import gc\n_seen = [o for o in gc.get_objects() if type(o).__name__ == 'Tensor'][:3]"
READ_FOLDER = ("import json, os, hashlib\n_nb = json.load(open('exercises.ipynb'))\n"
               "print('FILES', sorted(n for n in os.listdir('.') if not n.startswith('.')))\n"
               "print('HIDDEN', sum(('BEGIN ' + 'HIDDEN TESTS') in ''.join(c['source']) for c in _nb['cells']))\n"
               "print('SHA', hashlib.sha256(open('exercises.ipynb', 'rb').read()).hexdigest())\n")
SEGV = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"


def _submissions() -> dict[str, tuple[dict, str]]:
    """{student: (answers, base)}."""
    answer_cells = list(solution_code(CHAPTER))
    first, second, last = answer_cells[0], answer_cells[1], answer_cells[-1]
    functions = _function_cells()
    (f1, n1), (f2, n2), (f3, n3) = functions[0], functions[1], functions[2]
    return {
        "model": ({}, "solution"),
        "blankpost": (_attacked(first, POST, "student"), "student"),
        "astwrap": (_attacked(second, AST_WRAP), "solution"),
        "setprofile": (_attacked(second, SETPROFILE), "solution"),
        "frameread": (_in_function(f1, n1, FRAME_READ), "solution"),
        "tracebackread": (_in_function(f2, n2, TRACEBACK_READ), "solution"),
        "gcscan": (_in_function(f3, n3, GC_SCAN), "solution"),
        "readfolder": (_attacked(first, READ_FOLDER), "solution"),
        "crashlast": (_attacked(last, SEGV), "solution"),
        "crashfirst": (_attacked(first, "import os\nos._exit(3)"), "solution"),
        "crashseveral": ({**_attacked(answer_cells[2], SEGV), **_attacked(answer_cells[4], "import os\nos._exit(5)")},
                          "solution"),
    }


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = copy_course(tmp_path_factory.mktemp("hooks") / "course")
    scratch = tmp_path_factory.mktemp("hooks-submissions")
    mp = pytest.MonkeyPatch()
    mp.setenv("ATTNLAB_COURSE_ROOT", str(root))
    mp.delenv("ATTNLAB_GRADEBOOK_URL", raising=False)
    try:
        status, out, err = cli("release")
        assert status == 0, out + err
        download = scratch / "download.zip"
        files = {}
        with zipfile.ZipFile(download, "w") as zf:
            for student, (answers, base) in _submissions().items():
                path = write_submission(CHAPTER, scratch / f"{student}.ipynb", answers, base=base)
                files[student] = path.read_bytes()
                zf.writestr(f"{student}_exercises.ipynb", files[student])  # ids without "_": collect splits there
        status, out, err = cli("collect", CHAPTER, str(download))
        assert status == 0, out + err
        run = cli("autograde", CHAPTER, "--workers", "2", "--notebook-timeout", "600")
        yield {"root": root, "run": run, "rows": summary_rows(root), "files": files,
               "parts": part_grades(f"sqlite:///{root / 'gradebook.db'}")}
    finally:
        mp.undo()


def _outputs(graded, student: str, gid: str) -> str:
    nb = json.loads((graded["root"] / "autograded" / student / CHAPTER / "exercises.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == gid)
    def text(value):
        return "".join(value) if isinstance(value, list) else value or ""

    return "".join(text(o.get("text")) + text(o.get("evalue")) for o in cell["outputs"])


def _model(graded) -> dict[str, float]:
    return {gid: score for gid, (score, _) in graded["parts"]["model"].items()}


@pytest.mark.slow
def test_the_model_answer_scores_full_marks_unflagged(graded):
    row = graded["rows"]["model"]
    assert graded["run"][0] == 0, graded["run"]
    assert row["status"] == "graded" and row["reasons"] == "", row
    assert float(row["score"]) == sum(_model(graded).values()) > 0


@pytest.mark.slow
@pytest.mark.parametrize("student, attack_cell, reason", [
    ("blankpost", 0, "IPython's input transformers (input_transformers_post) changed while the cell ran"),
    ("astwrap", 1, "IPython's AST transformers (ast_transformers) changed while the cell ran"),
    ("setprofile", 1, "the profile function (sys.setprofile) changed while the cell ran"),
])
def test_a_hook_into_the_kernel_flags_the_notebook_and_awards_nothing_after_it(graded, student, attack_cell, reason):
    cell = list(solution_code(CHAPTER))[attack_cell]
    row = graded["rows"][student]
    assert row["status"] == "flagged" and f"cell {cell}: {reason}" in row["reasons"], row
    parts, model = graded["parts"][student], _model(graded)
    after = _after(cell)
    assert after and all(parts[g] == (0.0, True) for g in after), parts
    assert all(parts[g] == (model[g], False) for g in parts if g not in after), parts
    assert float(row["score"]) == sum(model[g] for g in parts if g not in after)


@pytest.mark.slow
@pytest.mark.parametrize("student, function, reason", [
    ("frameread", 0, "reads stack frames or tracebacks (currentframe)"),
    ("tracebackread", 1, "reads stack frames or tracebacks (tb_frame)"),
    ("gcscan", 2, "searches the interpreter's objects (get_objects)"),
])
def test_reading_the_tests_values_is_flagged_and_awards_nothing_after_it(graded, student, function, reason):
    """The static scan sees these before the tests run; the run-time guard's own catches of the same
    reads (while a test runs) are tested above on their own."""
    cell, _ = _function_cells()[function]
    row = graded["rows"][student]
    assert row["status"] == "flagged" and f"cell {cell}, line " in row["reasons"] and reason in row["reasons"], row
    parts, model = graded["parts"][student], _model(graded)
    after = _after(cell)
    assert after and all(parts[g] == (0.0, True) for g in after), parts
    assert all(parts[g] == (model[g], False) for g in parts if g not in after), parts


@pytest.mark.slow
def test_the_kernel_folder_holds_only_the_submission(graded):
    printed = _outputs(graded, "readfolder", list(solution_code(CHAPTER))[0])
    assert "FILES ['exercises.ipynb']" in printed and "HIDDEN 0" in printed, printed
    assert f"SHA {hashlib.sha256(graded['files']['readfolder']).hexdigest()}" in printed, printed
    row = graded["rows"]["readfolder"]
    assert row["status"] == "graded" and float(row["score"]) == sum(_model(graded).values()), row


@pytest.mark.slow
@pytest.mark.parametrize("student, cells, how", [
    ("crashlast", [-1], ["killed by signal 11"]),
    ("crashfirst", [0], ["exit status 3"]),
    ("crashseveral", [2, 4], ["killed by signal 11", "exit status 5"]),
])
def test_a_crashing_cell_costs_only_the_parts_that_need_it(graded, student, cells, how):
    names = list(solution_code(CHAPTER))
    crashed = [names[i] for i in cells]
    row = graded["rows"][student]
    assert row["status"] == "graded", row
    for gid, why in zip(crashed, how):
        assert f"cell {gid} crashed the kernel ({why}); it was replaced by an error" in row["notes"], row
        assert crash_message(why) in _outputs(graded, student, gid)
    parts, model = graded["parts"][student], _model(graded)
    needing = dependents(crashed)
    kept = [g for g in parts if g not in needing]
    assert kept and all(parts[g] == (model[g], False) for g in kept), (needing, parts)
    assert all(not manual for _, manual in parts.values()), parts
    if cells == [-1]:  # the last answer cell: every part before it keeps its points
        assert all(parts[g] == (model[g], False) for g in parts if g not in _after(crashed[0])), parts


@pytest.mark.slow
def test_every_submission_got_its_outcome_in_one_run(graded):
    status, out, err = graded["run"]
    assert status == 0, out + err
    assert set(graded["rows"]) == set(_submissions())


def test_a_students_exit_hooks_never_run_after_grading(tmp_path):
    """The grader kills the kernel once the last cell ran (``shutdown_kernel = "immediate"``): code a
    student registers to run at exit gets no time after the grading, and no second of the grader's."""
    mark = tmp_path / "ran"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        f"import atexit\natexit.register(lambda: open({str(mark)!r}, 'w').write('ran'))\nprint('registered')")])
    out, _ = HardenedExecute(kernel_name="python3").preprocess(nb, {})
    assert out.cells[0].outputs[0]["text"] == "registered\n"
    assert not mark.exists()


@pytest.mark.slow
@pytest.mark.parametrize("case", ["tensor method", "input's method", "torch name read by torch", "function mode",
                                  "python dispatcher"])
def test_red_team_28_state_changed_only_while_a_test_computes_its_expected_value_keeps_no_point(tmp_path, case):
    """Round 28, found by the lead (tests/redteam/round28/hostile/lead_just_in_time.py): a wrong answer that makes the
    hidden test's own reference go through its code, and puts everything back before the comparison and before any
    check between cells. Each kept its point unflagged on 3785585: a torch.Tensor method replaced inside the answer's
    call by one that deletes itself after one call, or shadowed the same way on the tensor the test handed over and
    whose method the reference then called; torch.layer_norm (read by F.layer_norm from the live torch module)
    replaced the same way; a TorchFunctionMode pushed by a callback on the answer's result and popped by a callback
    on the fake value it returned; a py_impl kernel run by torch's Python dispatcher, turned on by such a callback."""
    attack = load_script("tests/redteam/round28/hostile/lead_just_in_time.py")
    answer, test = attack.CASES[case]
    cells_in = [("import torch", "setup", "locked"), (attack.plain.cell_source(), "grading_helpers", "locked"),
                (answer, "answer", "student"), (test, "t1", "test")]
    ctx, cells = run_notebook(tmp_path, cells_in, timeout=300)
    errors = [o for o in cells["t1"].outputs if o.get("output_type") == "error"]
    assert errors, (case, ctx.tampered)
    if case not in ("tensor method", "input's method"):   # refused where tried (nothing changed, nothing to flag)
        assert ctx.tampered and "t1" in ctx.skipped_tests, (case, ctx.tampered)


@pytest.mark.slow
def test_torch_tensor_and_a_tensors_methods_cannot_be_replaced_and_honest_tensor_use_is_unchanged(tmp_path):
    """Round 28: torch.Tensor and torch.nn.Parameter are immutable types while a notebook is graded, and a method of
    torch.Tensor cannot be shadowed on one tensor (a data descriptor in torch.Tensor's own dict holds each). What
    honest code does with tensors still works: methods bound and unbound, subclasses with attributes of their own,
    attributes of a tensor's own that are no method's name, deepcopy and pickle, Parameters, as_subclass."""
    attempts = ["torch.Tensor.exp = None", "del torch.Tensor.exp", "torch.Tensor.brand_new = 1",
                "torch.nn.Parameter.exp = None", "t0.exp = lambda: 0", "del t0.exp",
                "object.__setattr__(t0, 'sum', lambda *a: 0)", "t0.__class__ = type('S', (torch.Tensor,), {})"]
    probe = ("import torch, copy, pickle\nt0 = torch.arange(4.0)\nresults = []\n"
             + "".join(f"try:\n    {a}\n    results.append({a!r})\nexcept (TypeError, AttributeError):\n"
                       "    results.append('refused')\n" for a in attempts) +
             "t0.__dict__['exp'] = lambda: 0\n"
             "assert t0.exp().tolist() == torch.exp(torch.arange(4.0)).tolist() and t0.sum() == 6\n"
             "assert torch.Tensor.exp(t0).tolist() == t0.exp().tolist() and torch.Tensor.exp is torch._C.TensorBase.exp\n"
             "class Sub(torch.Tensor):\n    pass\nSub.note = 1\ns = t0.as_subclass(Sub)\ns.label = 'mine'\n"
             "t0.label = 'own'\np = torch.nn.Parameter(torch.ones(2))\nq = copy.deepcopy(p)\n"
             "assert s.note == 1 and s.label == 'mine' and t0.label == 'own' and q.requires_grad\n"
             "assert pickle.loads(pickle.dumps(t0.clone())).tolist() == [0.0, 1.0, 2.0, 3.0]\n")
    test = "assert t0.sum() == 6 and results == ['refused'] * 8, results"
    ctx, cells = run_notebook(tmp_path, [(SETUP, "setup", "locked"), (probe, "a1", "student"), (test, "t1", "test")])
    assert not ctx.tampered and not [o for c in ("a1", "t1") for o in cells[c].outputs
                                     if o.get("output_type") == "error"], (ctx.tampered, cells["a1"].outputs,
                                                                            cells["t1"].outputs)
