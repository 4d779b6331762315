"""The exercises' library rule: an answer uses only Python's standard library and what the notebook imports.

Every notebook's introduction says that its parts use only ``torch`` (chapter 7 adds ``triton``) and
Python's standard library. Nothing at run time can tell an honest NumPy call from torch's own (torch
imports NumPy itself), so the rule is read from the student's cells with :mod:`ast`, outside the kernel:

* the libraries a notebook allows are the standard library (``sys.stdlib_module_names``) and the
  modules that the released notebook's locked cells import when they run (``import torch``, and in
  chapter 7 ``import triton.language as tl`` inside a ``try``); an import inside a function of a
  locked cell (the grading helpers look for NumPy's scalar types) allows nothing;
* an answer breaks the rule when it imports another module (``import numpy``, ``from scipy import``,
  ``__import__("numpy")``, ``importlib.import_module("numpy")``, ``sys.modules["numpy"]``, also in the
  text of an ``exec`` or a ``%time``), reads ``sys.modules`` by a name that is not in the text, loads a
  module by hand (``importlib.util.find_spec``, ``runpy.run_module``), converts a tensor (``.numpy()``,
  ``__array__``), reaches NumPy through torch (``F.np``), or uses a name bound outside the rule: one an
  earlier cell bound by such an import, or a helper of a cell the student added that breaks the rule
  (see :func:`scan`). A static scan cannot see everything a hostile answer could build at run time
  (``getattr(x, "num" + "py")``); it is there for the honest ways of breaking the rule, and the tamper
  guard flags code built at run time (``__import__`` of a computed name, ``exec`` of computed text, an
  unpickled reference to another library, ``marshal.loads``);
* ``attnlab`` is left to the grading kernel's import hook, which answers every import of it with a
  clear error (a ``try``/``except`` around it then costs nothing, since nothing of it is used).

:func:`scan` returns, per student cell, the reasons; the grader scores 0 in the graded cells of each
answer cell with a reason (see :func:`part_tests`) and says why in the cell's output and the notes.
Each part loses only its own points: the cells still run, so later parts find the functions they call.
"""

from __future__ import annotations

import ast
import collections
import sys

RULE = "the exercises use only {allowed} and Python's standard library (the notebook's introduction says so)"
HANDLED_ELSEWHERE = {"attnlab"}  # the grading kernel refuses its import with a message of its own


def _parse(source: str) -> ast.Module | None:
    """The cell as IPython runs it, with the code its ``%time``-like magics and its ``exec``/``eval`` of
    literal text run; None if it cannot be read (a cell too deep to parse is the tamper guard's to flag)."""
    from .guard import TooDeep, _parse_cell, code_in_string, magic_code

    try:
        tree = _parse_cell(source)
        if tree is None:
            return None
        texts = magic_code(tree) + [
            node.args[0].value for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name) and node.func.id in ("exec", "eval") and node.args
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)]
        for code in texts:
            inner = _parse_cell(code)
            tree.body.extend(inner.body if inner is not None else [])
        # code in any string that imports or calls: library code may run it (a `timeit` statement, an annotation
        # that `typing.get_type_hints` evaluates; red team 16), nested strings a few levels deep
        pending, seen = [tree], 0
        while pending and seen < 3:
            found = []
            for part in pending:
                for node in ast.walk(part):
                    if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                            inner := code_in_string(node.value)) is not None and any(
                            isinstance(n, (ast.Import, ast.ImportFrom, ast.Call)) for n in ast.walk(inner)):
                        found.append(inner)
            for inner in found:
                tree.body.extend(inner.body)
            pending, seen = found, seen + 1
    except TooDeep:
        return None
    return tree


def allowed_modules(locked_sources: list[str]) -> set[str]:
    """The standard library and the top-level modules that the locked cells import outside functions."""
    allowed = set(sys.stdlib_module_names)
    for source in locked_sources:
        tree = _parse(source)
        if tree is None:
            continue
        for node in _outside_functions(tree):
            if isinstance(node, ast.Import):
                allowed |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                allowed.add(node.module.split(".")[0])
    return allowed


def _outside_functions(tree: ast.Module):
    """The nodes of a cell that run when the cell runs (inside ``try`` or ``if`` too), not those of its
    functions and classes, which run only when called."""
    todo = collections.deque(tree.body)  # popleft: a cell of many thousand lines stays linear
    while todo:
        node = todo.popleft()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


def notebook_libraries(locked_sources: list[str]) -> list[str]:
    """The modules beyond the standard library that the locked cells import (``["torch"]``), for messages."""
    return sorted(allowed_modules(locked_sources) - set(sys.stdlib_module_names))


def _literal_module(call: ast.Call) -> str | None:
    """``numpy`` for ``__import__("numpy")`` or ``importlib.import_module("numpy.linalg")``."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name not in ("__import__", "import_module", "resolve_name") or not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value:
        return first.value
    return None


def _bound_here(tree: ast.Module) -> set[str]:
    """Every name the cell binds anywhere (assignments, parameters, imports, definitions)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


def _direct(tree: ast.Module, allowed: set[str]) -> tuple[list[str], dict[str, str]]:
    """``(reasons, {name: what})``: what the cell itself does outside the rule, and the names its imports of
    other libraries bind (what they are given with ``{cell}`` standing for this cell's id)."""
    reasons: list[str] = []
    taints: dict[str, str] = {}

    def outside(module: str) -> bool:
        top = module.split(".")[0]
        if module == "IPython.display" or module.startswith("IPython.display."):
            return False  # showing a table or a plot is an ordinary thing for an answer to do
        return top not in allowed and top not in HANDLED_ELSEWHERE

    torch_names = {"torch", "F", "nn"} | {
        (alias.asname or alias.name).split(".")[0] for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names if (getattr(node, "module", None) or alias.name).split(".")[0] == "torch"}
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    sys_names = {"sys", "__import__", "import_module"} | {
        alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
        if alias.name == "sys"}
    for node in ast.walk(tree):
        line = getattr(node, "lineno", "?")
        if isinstance(node, ast.Attribute) and node.attr == "modules" and _root(node) in sys_names and \
                not _literal_modules_use(node, parents.get(id(node)), parents):
            reasons.append(f"line {line} reads sys.modules by a name this check cannot read")
        if isinstance(node, ast.ImportFrom) and node.module == "sys" and any(a.name == "modules" for a in node.names):
            reasons.append(f"line {line} imports sys.modules, which reaches modules by names this check cannot read")
        if isinstance(node, ast.Attribute) and node.attr in ("path", "path_hooks", "meta_path") \
                and _root(node) in sys_names and isinstance(parents.get(id(node)), (ast.Attribute, ast.Subscript)) \
                and not (isinstance(parents[id(node)], ast.Attribute) and parents[id(node)].attr in ("index", "count")):
            reasons.append(f"line {line} changes where Python finds modules (sys.{node.attr}): the exercises import "
                           "only torch and the standard library, never a module of the notebook's folder")
        elif isinstance(node, (ast.Assign, ast.AugAssign)) and any(
                isinstance(t, ast.Attribute) and t.attr in ("path", "path_hooks", "meta_path") and _root(t) in sys_names
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])):
            reasons.append(f"line {line} changes where Python finds modules (sys.path): the exercises import only "
                           "torch and the standard library, never a module of the notebook's folder")
        if isinstance(node, ast.Call) and _loader_call(node):
            reasons.append(f"line {line} loads a module by hand ({_loader_call(node)}), which this check cannot read")
        if isinstance(node, ast.Import):
            for alias in node.names:
                if outside(alias.name):
                    reasons.append(f"line {line} imports {alias.name.split('.')[0]}")
                    taints[(alias.asname or alias.name).split(".")[0]] = f"{alias.name.split('.')[0]}, imported in cell {{cell}}"
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            top = node.module.split(".")[0]
            if node.module == "IPython" and all(alias.name == "display" for alias in node.names):
                continue  # `from IPython import display`: IPython.display by another name
            if outside(node.module):
                reasons.append(f"line {line} imports from {top}")
                for alias in node.names:
                    taints[alias.asname or alias.name] = f"imported from {top} in cell {{cell}}"
            for alias in node.names:
                if alias.name in ("np", "numpy") and not outside(node.module):  # torch.nn.functional re-exports NumPy
                    reasons.append(f"line {line} imports NumPy through {node.module} ({alias.name})")
                    taints[alias.asname or alias.name] = f"NumPy, imported from {node.module} in cell {{cell}}"
        elif isinstance(node, ast.Call) and (module := _literal_module(node)) and outside(module):
            reasons.append(f"line {line} imports {module.split('.')[0]}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "numpy":
            reasons.append(f"line {line} turns a tensor into a NumPy array (.numpy())")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) > 1 \
                and isinstance(node.args[1], ast.Constant) and node.args[1].value in ("numpy", "np", "__array__"):
            reasons.append(f"line {line} reaches NumPy through getattr(..., {node.args[1].value!r})")
        elif isinstance(node, ast.Attribute) and node.attr in ("__array__", "__array_interface__", "__array_struct__"):
            reasons.append(f"line {line} turns a tensor into a NumPy array ({node.attr})")
        elif isinstance(node, ast.Attribute) and node.attr == "np" and _root(node.value) in torch_names:
            reasons.append(f"line {line} uses NumPy through torch ({ast.unparse(node)})")
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "modules"
              and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) and outside(node.slice.value)):
            reasons.append(f"line {line} reads {node.slice.value.split('.')[0]} from sys.modules")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "modules" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and outside(node.args[0].value)):
            reasons.append(f"line {line} reads {node.args[0].value.split('.')[0]} from sys.modules")
    return list(dict.fromkeys(reasons)), taints


# importlib.util, importlib.machinery, runpy, pkgutil and zipimport: loading a module by hand, which no answer needs
LOADERS = {"find_spec", "module_from_spec", "spec_from_file_location", "spec_from_loader", "exec_module", "load_module",
           "run_module", "run_path", "find_loader", "get_loader", "SourceFileLoader", "SourcelessFileLoader",
           "ExtensionFileLoader", "zipimporter", "import_fresh_module",
           # imp (still in Python 3.11) and site: the same by older names
           "load_source", "load_compiled", "load_dynamic", "load_package", "addsitedir"}


def _loader_call(call: ast.Call) -> str | None:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return name if name in LOADERS else None


def _literal_modules_use(node: ast.Attribute, parent: ast.AST | None, parents: dict) -> bool:
    """True for the uses of ``sys.modules`` that name their module in the text: ``sys.modules["math"]``,
    ``sys.modules.get("math")``, ``"math" in sys.modules`` (whether the module is allowed is checked apart)."""
    literal = lambda n: isinstance(n, ast.Constant) and isinstance(n.value, str)  # noqa: E731
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return literal(parent.slice)
    if isinstance(parent, ast.Compare) and all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops):
        return node is not parent.left
    if isinstance(parent, ast.Attribute) and parent.attr == "get":
        call = parents.get(id(parent))
        return isinstance(call, ast.Call) and call.func is parent and bool(call.args) and literal(call.args[0])
    return False


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def scan(cells: list[tuple[str, str]], allowed: set[str], added: set[str] | frozenset = frozenset()) -> dict[str, list[str]]:
    """``{cell id: reasons}`` for the student's cells ``[(cell id, source), ...]`` in notebook order; ``added``
    are the ids of the cells the student added (not answer cells).

    A cell breaks the rule by what it does itself (an import of another library, ``.numpy()``, ...), or by
    using a name bound outside the rule: a name an earlier cell bound by such an import (until a cell
    binds it again), or a name an added cell that breaks the rule binds, wherever that cell stands (a
    helper there runs when a test calls the answer), unless a later cell binds it again. What an answer
    cell defines carries nothing to other answers: each part's tests call the earlier parts' references."""
    from .guard import module_bindings

    trees = [(cell_id, _parse(source)) for cell_id, source in cells]
    direct = {cell_id: _direct(tree, allowed) if tree is not None else ([], {}) for cell_id, tree in trees}
    last: dict[str, str] = {}
    for cell_id, tree in trees:
        for name, _ in module_bindings(tree) if tree is not None else []:
            last[name] = cell_id
    helpers = {name: f"defined in cell {cell_id}, which uses libraries outside the rule"
               for name, cell_id in last.items() if cell_id in added and direct[cell_id][0]}
    imported: dict[str, str] = {}
    found: dict[str, list[str]] = {}
    for cell_id, tree in trees:
        if tree is None:
            continue
        reasons = list(direct[cell_id][0])
        own = _bound_here(tree)
        tainted = {**helpers, **imported}
        reasons += [f"line {node.lineno} uses {node.id} ({tainted[node.id]})" for node in ast.walk(tree)
                    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in tainted
                    and node.id not in own]
        for name, _ in module_bindings(tree):
            imported.pop(name, None)
        imported.update({name: what.format(cell=cell_id) for name, what in direct[cell_id][1].items()})
        if reasons:
            found[cell_id] = list(dict.fromkeys(reasons))
    # an answer defined again, last, by an added cell that breaks the rule: the tests call that definition, so
    # the part of the answer cell it replaces breaks the rule too (red team 9: NumPy moved to a cell below)
    answers = {name: cell_id for cell_id, tree in trees if cell_id not in added and tree is not None
               for name, _ in module_bindings(tree)}
    for name, cell_id in last.items():
        if name in helpers and name in answers:
            found.setdefault(answers[name], []).append(f"{name} is defined again in cell {cell_id}, which uses "
                                                       "libraries outside the rule")
    return found


def part_tests(cells: list[tuple[str, str, str]]) -> dict[str, list[str]]:
    """``{answer cell id: the graded cells of its part}`` from ``[(kind, grade id, ...)]`` in notebook order:
    the answer cell itself if it is graded, and the graded cells that follow it up to the next answer cell."""
    parts: dict[str, list[str]] = {}
    current = None
    for kind, gid, graded in cells:
        if kind == "student":
            current = gid
            parts[current] = [gid] if graded else []
        elif kind == "test" and current is not None:
            parts[current].append(gid)
    return parts


def message(cell_id: str, reasons: list[str], libraries: list[str]) -> str:
    allowed = " and ".join(f"`{m}`" for m in libraries) or "nothing"
    return (f"answer cell {cell_id} " + "; ".join(reasons) + ": " + RULE.format(allowed=allowed)
            + ", so this part scores 0")
