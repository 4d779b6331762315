"""Find submissions that tamper with the grading machinery.

Two checks, both reported with a reason an instructor can read:

* :func:`static_findings` reads the student's cells (the ``solution`` cells) with :mod:`ast`,
  outside the kernel: assignments into ``torch`` / ``numpy`` / ``math`` / ``builtins`` (or any name
  imported from them), ``setattr``/``delattr`` on them, rebinding a helper that a locked or test
  cell defines (``_REF``, ``_ref_softmax``), or a builtin that a test uses (``isinstance``), and
  redefining an assertion helper (``assert_close``, ``allclose``).
* :data:`GUARD_SOURCE` runs inside the grading kernel before the first cell. It keeps the identity
  of every attribute of those modules (and of ``torch.Tensor``), of the builtins, and of the
  underscore names that locked cells define; after each student cell the grader asks it what
  changed. This catches patches that the text does not show (``setattr(__import__("tor" + "ch"),
  ...)``).

The second check runs in the process it inspects, so a submission written to defeat this very
guard could hide from it; the guide's threat model says so. :func:`edited_locked_cells` compares
the submitted locked cells with the released ones by nbgrader's own checksum.
"""

from __future__ import annotations

import ast
import builtins

WATCHED_MODULES = ("torch", "torch.testing", "torch.nn", "torch.nn.functional", "numpy", "numpy.testing", "math",
                   "builtins")
ASSERT_HELPERS = {"assert_close", "allclose", "isclose", "assert_allclose", "array_equal", "equal"}
_IPYTHON_NAMES = {"_", "__", "___", "_i", "_ii", "_iii", "_ih", "_oh", "_dh", "_exit_code", "__builtins__",
                  "__name__", "__doc__", "__package__", "__loader__", "__spec__", "__builtin__"}


def _is_ipython_name(name: str) -> bool:
    return name in _IPYTHON_NAMES or (name.startswith("_i") and name[2:].isdigit()) or (
        name.startswith("_") and name[1:].isdigit())


def _root(node: ast.AST) -> str | None:
    """The name at the start of ``a.b[c].d``."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _dotted(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - ast.unparse handles every expression node
        return "?"


def defined_names(sources: list[str]) -> set[str]:
    """Top-level underscore names bound by the given cells (helpers of locked and test cells)."""
    names = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id.startswith("_"):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name.startswith("_"):
                names.add(node.name)
    return {n for n in names if not _is_ipython_name(n)}


def used_builtins(sources: list[str]) -> set[str]:
    """Builtin names that the given (test) cells read, such as ``isinstance`` or ``len``."""
    used = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        used |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return used & set(dir(builtins))


def static_findings(cell_id: str, source: str, protected: set[str], test_builtins: set[str]) -> list[str]:
    """Reasons why a student cell looks like it patches the grading machinery (empty if none)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []  # the cell fails when it runs; nothing to patch
    roots = {"torch", "numpy", "np", "math", "builtins", "__builtins__", "nn", "F", "sys"}
    findings = []

    def where(node):
        return f"cell {cell_id}, line {getattr(node, 'lineno', '?')}"

    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = getattr(node, "module", None) or ""
            for alias in node.names:
                full = f"{module}.{alias.name}" if module else alias.name
                if full.split(".")[0] in ("torch", "numpy", "math", "builtins", "sys"):
                    roots.add((alias.asname or alias.name).split(".")[0])
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        flat = []
        while targets:
            t = targets.pop()
            if isinstance(t, (ast.Tuple, ast.List)):
                targets.extend(t.elts)
            else:
                flat.append(t)
        for target in flat:
            if isinstance(target, (ast.Attribute, ast.Subscript)):
                root = _root(target)
                if root in roots or root in protected or root in ("globals", "vars"):
                    findings.append(f"{where(node)}: assigns to {_dotted(target)}")
                elif isinstance(target, ast.Attribute) and target.attr in ASSERT_HELPERS:
                    findings.append(f"{where(node)}: assigns to {_dotted(target)}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
            first = node.args[0] if node.args else None
            root = _root(first) if first is not None else None
            if root in roots or root in protected or not isinstance(first, ast.Name):
                findings.append(f"{where(node)}: calls {node.func.id}({_dotted(first) if first is not None else ''}, ...)")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update" and (
                _root(node.func.value) in roots | {"globals", "vars"} or isinstance(node.func.value, ast.Call)):
            findings.append(f"{where(node)}: calls {_dotted(node.func)}(...)")
    # top-level rebinding of a test helper, an assertion helper, or a builtin a test relies on
    for node in tree.body:
        bound: list[tuple[str, ast.AST]] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.append((node.name, node))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = list(node.targets) if isinstance(node, ast.Assign) else [node.target]
            while targets:
                target = targets.pop()
                if isinstance(target, (ast.Tuple, ast.List)):
                    targets.extend(target.elts)
                elif isinstance(target, ast.Starred):
                    targets.append(target.value)
                elif isinstance(target, ast.Name):
                    bound.append((target.id, node))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound += [((a.asname or a.name).split(".")[0], node) for a in node.names]
        for name, at in bound:
            if name in protected:
                findings.append(f"{where(at)}: redefines {name}, which the tests use")
            elif name in test_builtins:
                findings.append(f"{where(at)}: redefines the builtin {name}, which the tests use")
            elif name in ASSERT_HELPERS and not isinstance(node, (ast.Import, ast.ImportFrom)):
                findings.append(f"{where(at)}: defines an assertion helper named {name}")
            elif name in ("torch", "np", "numpy", "math", "nn", "F") and not isinstance(node, (ast.Import, ast.ImportFrom)):
                findings.append(f"{where(at)}: rebinds the module name {name}")
    return findings


def edited_locked_cells(submitted: dict, released: dict) -> tuple[list[str], list[str]]:
    """``(edited, missing)`` grade ids of locked cells, by nbgrader's checksum of the released cell."""
    from nbgrader.utils import compute_checksum, is_locked

    def locked(nb):
        return {c.metadata.nbgrader["grade_id"]: c for c in nb.cells
                if "nbgrader" in c.metadata and "grade_id" in c.metadata.nbgrader and is_locked(c)}

    theirs, ours = locked(submitted), locked(released)
    edited = [gid for gid, cell in ours.items() if gid in theirs and compute_checksum(theirs[gid]) != compute_checksum(cell)]
    missing = [gid for gid in ours if gid not in theirs]
    return edited, missing


# Runs silently in the grading kernel before the first cell. Everything lives in a closure; the
# grader reads the result of __attnlab_guard__(...) through the reply's user_expressions.
GUARD_SOURCE = r'''
def __attnlab_make_guard__(module_names, test_builtins):
    import builtins as _b, importlib as _il, sys as _sys
    _id, _vars, _sorted, _isinstance, _dict, _repr = id, vars, sorted, isinstance, dict, repr
    # IPython and ipykernel swap these builtins for every execution request
    VOLATILE = {"input", "raw_input", "get_ipython", "display", "exit", "quit", "_", "__", "___", "__IPYTHON__"}
    IGNORED = {"_", "__", "___", "_i", "_ii", "_iii", "_ih", "_oh", "_dh", "_exit_code", "__builtins__",
               "__name__", "__doc__", "__package__", "__loader__", "__spec__", "__builtin__"}
    watched = []          # (label, namespace dict, {key: id}, whether a new key counts as a change)
    for name in module_names:
        try:
            mod = _il.import_module(name)
        except Exception:
            continue
        ns = _vars(mod)
        watched.append((name, ns, {k: _id(v) for k, v in _dict(ns).items()
                                   if not (name == "builtins" and k in VOLATILE)}, False))
        if name == "torch":   # a new attribute on torch.Tensor shadows a method of its C base class
            tensor = _vars(mod.Tensor)
            watched.append(("torch.Tensor", tensor, {k: _id(v) for k, v in _dict(tensor).items()}, True))
    modules = {name: _id(_sys.modules.get(name)) for name in module_names}
    missing = object()
    user = {}
    def user_snapshot(ns):
        snap = {}
        for key, value in ns.items():
            if key.startswith("_") and not key.startswith("__attnlab") and key not in IGNORED and not (
                    key[1:].isdigit() or (key.startswith("_i") and key[2:].isdigit())):
                snap[key] = _id(value)
                if _isinstance(value, _dict):
                    for k, v in _dict(value).items():
                        snap[(key, _repr(k))] = _id(v)
        return snap
    def guard(action, ns):
        if action == "adopt":          # after a locked cell: its underscore names become protected
            user.clear()
            user.update(user_snapshot(ns))
            return []
        changed = []
        for label, space, pristine, strict in watched:
            for key, ident in pristine.items():
                if _id(space.get(key, missing)) != ident:
                    changed.append(f"{label}.{key}")
            if strict and len(space) != len(pristine):
                changed += [f"{label}.{key}" for key in _dict(space) if key not in pristine]
        for name, ident in modules.items():
            if _id(_sys.modules.get(name)) != ident:
                changed.append(f"sys.modules[{name!r}]")
        if action == "check":          # after a student cell; after a test cell its helpers may change
            current = user_snapshot(ns)
            for key, ident in user.items():
                if current.get(key) != ident:
                    changed.append(key if _isinstance(key, str) else f"{key[0]}[{key[1]}]")
            for name in test_builtins:
                if name in ns:
                    changed.append(f"builtin {name} shadowed")
        return _sorted(changed)
    return guard
__attnlab_guard__ = __attnlab_make_guard__(%r, %r)
del __attnlab_make_guard__
'''
