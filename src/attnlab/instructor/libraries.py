"""The exercises' library rule: an answer uses only Python's standard library and what the notebook imports.

Every notebook's introduction says that its parts use only ``torch`` (chapter 7 adds ``triton``) and
Python's standard library. Nothing at run time can tell an honest NumPy call from torch's own (torch
imports NumPy itself), so the rule is read from the student's cells with :mod:`ast`, outside the kernel:

* the libraries a notebook allows are the standard library (``sys.stdlib_module_names``) and the
  modules that the released notebook's locked cells import when they run (``import torch``, and in
  chapter 7 ``import triton.language as tl`` inside a ``try``); an import inside a function of a
  locked cell (the grading helpers look for NumPy's scalar types) allows nothing;
* an answer breaks the rule when it imports another module (``import numpy``, ``from scipy import``,
  ``__import__("numpy")``, ``importlib.import_module("numpy")``), converts a tensor with ``.numpy()``,
  or uses a name that an earlier student cell bound by such an import or defined (a function, a
  class) in a cell that broke the rule, such as a helper written with NumPy in a cell the student added;
* ``attnlab`` is left to the grading kernel's import hook, which answers every import of it with a
  clear error (a ``try``/``except`` around it then costs nothing, since nothing of it is used).

:func:`scan` returns, per student cell, the reasons; the grader scores 0 in the graded cells of each
answer cell with a reason (see :func:`part_tests`) and says why in the cell's output and the notes.
Each part loses only its own points: the cells still run, so later parts find the functions they call.
"""

from __future__ import annotations

import ast
import sys

RULE = "the exercises use only {allowed} and Python's standard library (the notebook's introduction says so)"
HANDLED_ELSEWHERE = {"attnlab"}  # the grading kernel refuses its import with a message of its own


def _parse(source: str) -> ast.Module | None:
    """The cell as IPython runs it, with the code its ``%time``-like magics run; None if it cannot be read
    (a cell too deep to parse is the tamper guard's to flag)."""
    from .guard import TooDeep, _parse_cell, magic_code

    try:
        tree = _parse_cell(source)
        for code in magic_code(tree) if tree is not None else []:
            inner = _parse_cell(code)
            tree.body.extend(inner.body if inner is not None else [])
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
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
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
    if name not in ("__import__", "import_module") or not call.args:
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


def _definitions(tree: ast.Module) -> set[str]:
    """Functions and classes the cell defines at its top level, and names it assigns there."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def cell_findings(source: str, allowed: set[str], tainted: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """``(reasons, names this cell taints)`` for one student cell.

    ``tainted`` maps names that earlier student cells bound outside the rule to what they are. A cell
    that breaks the rule taints the names its imports bind and what it defines at its top level; what
    they are is given with ``{cell}`` standing for this cell's id."""
    tree = _parse(source)
    if tree is None:
        return [], {}
    reasons: list[str] = []
    taints: dict[str, str] = {}

    def outside(module: str) -> bool:
        top = module.split(".")[0]
        return top not in allowed and top not in HANDLED_ELSEWHERE

    for node in ast.walk(tree):
        line = getattr(node, "lineno", "?")
        if isinstance(node, ast.Import):
            for alias in node.names:
                if outside(alias.name):
                    reasons.append(f"line {line} imports {alias.name.split('.')[0]}")
                    taints[(alias.asname or alias.name).split(".")[0]] = f"{alias.name.split('.')[0]}, imported in cell {{cell}}"
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level and outside(node.module):
            top = node.module.split(".")[0]
            reasons.append(f"line {line} imports from {top}")
            for alias in node.names:
                taints[alias.asname or alias.name] = f"imported from {top} in cell {{cell}}"
        elif isinstance(node, ast.Call) and (module := _literal_module(node)) and outside(module):
            reasons.append(f"line {line} imports {module.split('.')[0]}")
        elif isinstance(node, ast.Attribute) and node.attr == "numpy":
            reasons.append(f"line {line} turns a tensor into a NumPy array (.numpy())")
    own = _bound_here(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in tainted and node.id not in own:
            reasons.append(f"line {node.lineno} uses {node.id} ({tainted[node.id]})")
    reasons = list(dict.fromkeys(reasons))
    if reasons:
        for name in _definitions(tree):
            taints.setdefault(name, "defined in cell {cell}, which uses libraries outside the rule")
    return reasons, taints


def scan(cells: list[tuple[str, str]], allowed: set[str]) -> dict[str, list[str]]:
    """``{cell id: reasons}`` for the student's cells ``[(cell id, source), ...]`` in notebook order."""
    tainted: dict[str, str] = {}
    found: dict[str, list[str]] = {}
    for cell_id, source in cells:
        reasons, taints = cell_findings(source, allowed, tainted)
        tainted.update({name: what.format(cell=cell_id) for name, what in taints.items()})
        if reasons:
            found[cell_id] = reasons
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
