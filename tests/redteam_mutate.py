"""Mutation sweep: small mechanical changes to a chapter's model answers that the visible tests pass
and the hidden tests do not catch.

    python tests/redteam_mutate.py 03-multi-head [--part GRADE_ID ...] [--family first|second|third|fourth|all]
                                                 [--variant NAME] [--processes 2] [--timeout 60] [--show K]

Red-team rounds 1 to 12 wrote wrong answers by hand, as students would. This sweep is the other
half: it changes each answer cell of the model answer in one place at a time and runs the part's
test cells on it. Four families of changes (see :func:`mutants`): *first*, an operator, a
comparison, a number, a keyword argument dropped, two positional arguments swapped, a method call,
a slice bound or a statement dropped, a function for its twin (``amax``/``amin``,
``float32``/``float64``, ``tril``/``triu``); *second*, a parameter used where another is, a size or
bound one off, tuple items in the other order, arithmetic on a parameter in place; *third*, a local
used where another is, an early exit left out, a compared bound one off; *fourth*, slips at the tensor
level (a mask inverted, a method done in place on a parameter, a wrapping call left out, a reduction over
every dimension, the input's dtype lost, a masked value finite, einsum letters or a new axis moved, a
function for its sibling, the result detached, a transpose left out). Each mutant ends as one of:

* ``visible``: the answer cell or a visible test line raised: the student would see it;
* ``caught``: the visible tests pass and a hidden test takes points;
* ``SURVIVED``: full points. Either the change does not change what the text asks for (an
  equivalent mutant: judge it and move on) or the hidden tests miss a wrong answer (close its class);
* ``timeout`` / ``crashed``: the mutant ran past ``--timeout`` or killed its process.

Prints one line per surviving mutant (the answer line before and after) and a count per part. The
notebook runs as in tests/cellrun.py (one namespace, torch's switches reset before each test cell,
the course package not importable), in processes forked after the earlier cells ran once per part.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import select
import signal
import sys
import time
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
warnings.filterwarnings("ignore", category=SyntaxWarning)
sys.path.insert(0, str(ROOT / "tests"))

from attnlab.instructor.plain import _hidden_lines  # noqa: E402
from cellrun import as_in_a_grading_kernel, run_cell  # noqa: E402
from grading import SOLUTION_LINES, load  # noqa: E402

SWAPS = {  # a name or attribute for its twin: a student's plausible slip of the pen
    "amax": "amin", "amin": "amax", "max": "min", "min": "max", "argmax": "argmin", "argmin": "argmax",
    "sum": "mean", "mean": "sum", "float32": "float64", "float64": "float32", "int64": "int32",
    "int32": "int64", "tril": "triu", "triu": "tril", "ceil": "floor", "floor": "ceil", "any": "all",
    "all": "any", "zeros": "ones", "ones": "zeros", "zeros_like": "ones_like", "ones_like": "zeros_like",
    "clamp_min": "clamp_max", "clamp_max": "clamp_min", "softmax": "log_softmax", "log_softmax": "softmax",
    "cumsum": "cumprod", "exp": "exp2", "log": "log2", "topk": "sort", "maximum": "minimum",
    "minimum": "maximum", "logsumexp": "amax", "rsqrt": "sqrt", "sqrt": "rsqrt", "le": "lt", "lt": "le",
    "ge": "gt", "gt": "ge", "round": "floor", "expand": "repeat", "reshape": "view",
    "size": "numel", "float16": "bfloat16", "bfloat16": "float16",
    "isinf": "isnan", "isnan": "isinf", "isfinite": "isnan", "new_zeros": "new_ones",
}
BINOPS = {ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.Div], ast.Div: [ast.Mult, ast.FloorDiv],
          ast.FloorDiv: [ast.Div], ast.Pow: [ast.Mult], ast.Mod: [ast.FloorDiv], ast.MatMult: [ast.Mult],
          ast.BitAnd: [ast.BitOr], ast.BitOr: [ast.BitAnd], ast.LShift: [ast.RShift], ast.RShift: [ast.LShift]}
COMPARES = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
            ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
SYMMETRIC = {"transpose", "swapaxes", "swapdims", "max", "min", "maximum", "minimum", "add", "mul", "logical_and",
             "logical_or", "logical_xor", "eq", "ne", "equal", "allclose", "isclose", "hypot", "gcd", "lcm"}
DROPPABLE_METHODS = {"clone", "contiguous", "float", "double", "detach", "to", "type_as", "long", "int",
                     "bool", "half", "item", "abs", "sqrt", "exp", "log", "neg", "t", "flip", "expand_as",
                     "masked_fill", "clamp", "clamp_min", "clamp_max", "squeeze", "unsqueeze", "sum", "mean",
                     "amax", "amin", "cumsum", "nan_to_num", "view_as", "reshape_as", "tolist", "copy_"}


def _texts(tree: ast.AST) -> set[int]:
    """ids of nodes inside strings, docstrings, f-strings and the messages of raise / assert."""
    skip = set()

    def mark(node):
        for n in ast.walk(node):
            skip.add(id(n))

    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            mark(node)
        elif isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc
            if isinstance(exc, ast.Call):
                for a in exc.args:
                    mark(a)
        elif isinstance(node, ast.Assert) and node.msg is not None:
            mark(node.msg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                mark(body[0])
    return skip


def _numbers(value):
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return sorted({value + 1, value - 1, 0, -value} - {value}, key=abs)[:3]
    if isinstance(value, float):
        out = [value * 2, value / 2, 0.0, 1.0, -value]
        return [v for v in dict.fromkeys(out) if v != value][:4]
    return []


def _changed(before: str, after: str) -> str:
    """The lines that differ, as ``old -> new`` (both as ast.unparse writes them)."""
    old, new = before.splitlines(), after.splitlines()
    a = 0
    while a < min(len(old), len(new)) and old[a] == new[a]:
        a += 1
    b = 0
    while b < min(len(old), len(new)) - a and old[-1 - b] == new[-1 - b]:
        b += 1
    gone = " / ".join(line.strip() for line in old[a:len(old) - b])[:150]
    came = " / ".join(line.strip() for line in new[a:len(new) - b])[:150]
    return f"{gone}  ->  {came}"


FAMILIES = ("first", "second", "third", "fourth")
OFF_BY_ONE_CALLS = {"range", "arange", "narrow", "zeros", "ones", "empty", "full", "tril", "triu", "roll", "randn",
                    "rand", "randint", "eye", "linspace", "repeat_interleave", "topk", "split", "chunk"}
IN_PLACE = {ast.Add: "add_", ast.Sub: "sub_", ast.Mult: "mul_", ast.Div: "div_"}


def mutants(code: str, families=FAMILIES) -> list[tuple[str, str, str]]:
    """``(description, mutated code, changed lines)`` for every single change of the operators above.

    Family ``first`` (round 13): operators, comparisons, numbers, keywords, swapped arguments, dropped
    method calls, slice bounds and statements, twins. Family ``second``: one parameter of the function
    used where another is (``q`` for ``k``), a size or bound one off (``n`` as ``n + 1`` / ``n - 1`` in a
    slice or in ``range``, ``arange``, ``zeros``, ...), two items of a returned or assigned tuple in
    the other order, and arithmetic on a parameter done in place (``x.mul_(s)`` for ``x * s``). Family
    ``third``: a local variable used where another one defined before it is (``scores`` for
    ``weights``), an early ``return``, ``break`` or ``continue`` left out, and a bound compared with
    one off (``i < n - 1`` for ``i < n``). Family ``fourth``: see :func:`_fourth_family`."""
    tree = ast.parse(code)
    skip = _texts(tree)
    nodes = [n for n in ast.walk(tree) if id(n) not in skip]
    negated = {id(n.operand) for n in nodes if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub)}
    out = []
    base = ast.unparse(tree)
    seen = {base}
    lines = code.splitlines()

    def emit(index, change, what):
        new = copy.deepcopy(tree)
        texts = _texts(new)  # once per mutant: inside the comprehension it was redone for every node
        target = [n for n in ast.walk(new) if id(n) not in texts][index]
        if change(target, new) is False:
            return
        ast.fix_missing_locations(new)
        try:
            text = ast.unparse(new)
            compile(text, "<mutant>", "exec")
        except (SyntaxError, ValueError, TypeError, AttributeError, RecursionError):
            return
        if text in seen:
            return
        seen.add(text)
        out.append((f"L{getattr(nodes[index], 'lineno', 0)} {what}", text, _changed(base, text)))

    def set_attr(field, value):
        def change(node, _tree):
            setattr(node, field, value)
        return change

    for i, node in enumerate(nodes if "first" in families else ()):
        if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
            for op in BINOPS[type(node.op)]:
                emit(i, set_attr("op", op()), f"{type(node.op).__name__} -> {op.__name__}")
            if isinstance(node.op, (ast.Add, ast.Sub)):
                emit(i, lambda n, t: _replace(t, n, n.left), "drop the right operand of +/-")
        elif isinstance(node, ast.AugAssign) and type(node.op) in BINOPS:
            for op in BINOPS[type(node.op)]:
                emit(i, set_attr("op", op()), f"{type(node.op).__name__}= -> {op.__name__}=")
        elif isinstance(node, ast.Compare):
            for j, op in enumerate(node.ops):
                if type(op) in COMPARES:
                    def change(n, _t, j=j):
                        n.ops[j] = COMPARES[type(n.ops[j])]()
                    emit(i, change, f"{type(op).__name__} -> {COMPARES[type(op)].__name__}")
        elif isinstance(node, ast.BoolOp):
            other = ast.Or if isinstance(node.op, ast.And) else ast.And
            emit(i, set_attr("op", other()), f"{type(node.op).__name__} -> {other.__name__}")
            for j in range(len(node.values)):
                def drop(n, t, j=j):
                    rest = [v for k, v in enumerate(n.values) if k != j]
                    if len(rest) == 1:
                        return _replace(t, n, rest[0])
                    n.values = rest
                emit(i, drop, f"drop operand {j} of {type(node.op).__name__}")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub, ast.Invert)):
            emit(i, lambda n, t: _replace(t, n, n.operand), f"drop {type(node.op).__name__}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            for v in _numbers(node.value):
                if id(node) in negated and v == -node.value:
                    continue  # -(-c): the same as dropping the minus
                emit(i, set_attr("value", v), f"{node.value!r} -> {v!r}")
        elif isinstance(node, ast.Attribute) and node.attr in SWAPS:
            emit(i, set_attr("attr", SWAPS[node.attr]), f".{node.attr} -> .{SWAPS[node.attr]}")
        elif isinstance(node, ast.Name) and node.id in SWAPS and node.id in ("max", "min", "sum", "round", "any", "all"):
            emit(i, set_attr("id", SWAPS[node.id]), f"{node.id} -> {SWAPS[node.id]}")
        if isinstance(node, ast.Call):
            for j, kw in enumerate(node.keywords):
                if kw.arg is not None and kw.arg != "device":  # on the CPU every tensor is on the same device
                    def drop_kw(n, _t, j=j):
                        del n.keywords[j]
                    emit(i, drop_kw, f"drop keyword {kw.arg}=")
            plain = [a for a in node.args if not isinstance(a, ast.Starred)]
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if len(plain) == len(node.args) and name not in SYMMETRIC:
                for j in range(len(plain) - 1):
                    def swap(n, _t, j=j):
                        n.args[j], n.args[j + 1] = n.args[j + 1], n.args[j]
                    emit(i, swap, f"swap positional arguments {j} and {j + 1}")
            if isinstance(node.func, ast.Attribute) and node.func.attr in DROPPABLE_METHODS:
                emit(i, lambda n, t: _replace(t, n, n.func.value), f"drop .{node.func.attr}(...)")
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            for field in ("lower", "upper"):
                if getattr(node.slice, field) is not None:
                    def drop_bound(n, _t, field=field):
                        setattr(n.slice, field, None)
                    emit(i, drop_bound, f"drop the slice's {field} bound")
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and len(block) > 1 and not isinstance(node, ast.Module):
                for j, stmt in enumerate(block):
                    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr, ast.If, ast.For, ast.With)) and id(stmt) not in skip:
                        def drop_stmt(n, _t, field=field, j=j):
                            del getattr(n, field)[j]
                        emit(i, drop_stmt, f"drop the statement at line {stmt.lineno}: {lines[stmt.lineno - 1].strip()[:60]}")
    if "second" in families:
        _second_family(nodes, emit)
    if "third" in families:
        _third_family(nodes, emit)
    if "fourth" in families:
        _fourth_family(nodes, emit)
    return out


def _parameters(fn) -> list[str]:
    """The names of a function's (or lambda's) parameters but ``self``, in order."""
    return [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs) if a.arg != "self"]


def _third_family(nodes, emit):
    index = {id(n): i for i, n in enumerate(nodes)}
    for fn in nodes:
        if not isinstance(fn, ast.FunctionDef):
            continue
        params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}  # self too: not a local
        first_line = {}  # local name -> the line where it is first bound
        for n in ast.walk(fn):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in params:
                first_line[n.id] = min(first_line.get(n.id, n.lineno), n.lineno)
        for n in ast.walk(fn):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in first_line and id(n) in index:
                before = sorted((line, name) for name, line in first_line.items()
                                if name != n.id and line < n.lineno)[-4:]  # the four bound last before this use
                for _line, other in before:
                    def rename(node, _t, other=other):
                        node.id = other
                    emit(index[id(n)], rename, f"local {other} where {n.id} is")
    for i, node in enumerate(nodes):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if not isinstance(block, list) or isinstance(node, (ast.Module, ast.FunctionDef)):
                continue
            for j, stmt in enumerate(block):
                if isinstance(stmt, (ast.Return, ast.Break, ast.Continue)):
                    def to_pass(n, _t, field=field, j=j):
                        getattr(n, field)[j] = ast.Pass()
                    emit(i, to_pass, f"leave out the {type(stmt).__name__.lower()} at line {stmt.lineno}")
        if isinstance(node, ast.Compare):
            for operand in node.comparators:
                if isinstance(operand, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) and id(operand) in index:
                    _off_by_one(index[id(operand)], operand, emit)


MASK_FIRST = {"masked_fill", "masked_fill_", "masked_select", "masked_scatter", "where"}
IN_PLACE_TWINS = {"masked_fill", "add", "sub", "mul", "div", "clamp", "clamp_min", "clamp_max", "exp", "sqrt",
                  "neg", "abs", "transpose", "unsqueeze", "squeeze", "t", "sigmoid", "tanh", "relu", "pow",
                  "fill_diagonal", "scatter", "index_fill", "copy", "floor", "round", "log", "addcmul", "lerp"}
WRAPPERS = {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu", "silu", "softmax", "log_softmax",
            "abs", "round", "floor", "ceil", "int", "float", "bool", "reversed", "sorted", "list", "tuple",
            "contiguous", "clone", "detach", "log1p", "expm1", "erf", "square"}
WRAPPER_MODULES = {"torch", "F", "math", "functional", "np"}
REDUCTIONS = {"sum", "mean", "amax", "amin", "max", "min", "prod", "logsumexp", "argmax", "argmin", "var", "std",
              "norm", "all", "any", "cumsum", "softmax", "log_softmax", "count_nonzero", "nansum", "median"}
TWINS = {"tanh": "sigmoid", "sigmoid": "tanh", "relu": "gelu", "gelu": "relu", "silu": "gelu", "sin": "cos",
         "cos": "sin", "cat": "stack", "stack": "cat", "var": "std", "std": "var", "matmul": "mul", "mul": "matmul",
         "log1p": "log", "expm1": "exp", "repeat_interleave": "repeat", "repeat": "repeat_interleave",
         "argsort": "sort", "permute": "transpose", "flatten": "ravel", "bmm": "mul",
         "multinomial": "argmax", "cross_entropy": "nll_loss", "nll_loss": "cross_entropy", "long": "int",
         "int": "long", "float": "double", "double": "float", "half": "bfloat16", "bfloat16": "half"}
LIKE = {"zeros_like": "zeros", "ones_like": "ones", "empty_like": "empty", "full_like": "full",
        "rand_like": "rand", "randn_like": "randn"}


def _callee(node):
    """The called name of a Call (``f`` of ``f(x)``, ``exp`` of ``torch.exp(x)`` and of ``x.exp()``), and
    whether it is a module's function (or a builtin) rather than a method of a value."""
    func = node.func
    if isinstance(func, ast.Name):
        return func.id, True
    if isinstance(func, ast.Attribute):
        root = func.value
        while isinstance(root, ast.Attribute):
            root = root.value
        module = isinstance(root, ast.Name) and root.id in WRAPPER_MODULES
        return func.attr, module
    return "", False


def _root_name(node):
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _fourth_family(nodes, emit):
    """Tensor-level slips: a mask inverted, a method done in place on a parameter, a wrapping call left
    out, a reduction over every dimension, a dtype or shape taken without the input's dtype, a masked
    value finite, an einsum's letters or a new axis moved, a range's start left out, a function for a
    sibling, the result detached or returned as float32, a parameter widened to float32 or float64 on
    entry and never cast back, a transpose left out."""
    params_of = {}
    for fn in nodes:
        if isinstance(fn, ast.FunctionDef):
            params = set(_parameters(fn))
            for n in ast.walk(fn):
                params_of[id(n)] = params
    for i, node in enumerate(nodes):
        if isinstance(node, ast.Call):
            name, module = _callee(node)
            mask_at = 1 if module and name != "where" else 0  # torch.masked_fill(x, mask, v), x.masked_fill(mask, v)
            if name in MASK_FIRST and len(node.args) > mask_at:
                def invert(n, _t, k=mask_at):
                    n.args[k] = ast.UnaryOp(op=ast.Invert(), operand=n.args[k])
                emit(i, invert, f"the mask of {name} inverted")
            if name in IN_PLACE_TWINS and not module and _root_name(node.func.value) in params_of.get(id(node), ()):
                emit(i, lambda n, _t: setattr(n.func, "attr", n.func.attr + "_"),
                     f".{name}(...) -> .{name}_(...) on a parameter")
            if name in WRAPPERS and module and node.args and not isinstance(node.args[0], (ast.Constant, ast.Starred)):
                emit(i, lambda n, t: _replace(t, n, n.args[0]), f"{name}(x) -> x")
            if name in REDUCTIONS:
                dim_at = 1 if module else 0
                if len(node.args) == dim_at + 1 and not isinstance(node.args[dim_at], ast.Starred):
                    def whole(n, _t, k=dim_at):
                        del n.args[k]
                        n.keywords = [kw for kw in n.keywords if kw.arg != "keepdim"]
                    emit(i, whole, f"{name} over every dimension (its dim left out)")
            if name in TWINS:
                if isinstance(node.func, ast.Attribute):
                    emit(i, lambda n, _t, to=TWINS[name]: setattr(n.func, "attr", to), f"{name} -> {TWINS[name]}")
            if name == "einsum" and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str) and "->" in node.args[0].value:
                spec = node.args[0].value
                ins, out = spec.split("->")
                for k in range(len(out) - 1):
                    if out[k].isalpha() and out[k + 1].isalpha():
                        new = ins + "->" + out[:k] + out[k + 1] + out[k] + out[k + 2:]
                        emit(i, lambda n, _t, new=new: setattr(n.args[0], "value", new),
                             f"einsum output letters {k} and {k + 1} in the other order")
                first = ins.split(",")[0]
                for k in range(len(first) - 1):
                    if first[k].isalpha() and first[k + 1].isalpha():
                        new = first[:k] + first[k + 1] + first[k] + first[k + 2:] + ins[len(first):] + "->" + out
                        emit(i, lambda n, _t, new=new: setattr(n.args[0], "value", new),
                             f"einsum first operand's letters {k} and {k + 1} in the other order")
            if name in LIKE and module and node.args:
                def unlike(n, _t, to=LIKE[name]):
                    n.func.attr = to
                    n.args[0] = ast.Attribute(value=n.args[0], attr="shape", ctx=ast.Load())
                    n.keywords = [kw for kw in n.keywords if kw.arg != "dtype"]
                emit(i, unlike, f"{name}(x) -> {LIKE[name]}(x.shape) (float32, the input's dtype lost)")
            if name in ("range", "arange") and len(node.args) == 2:
                emit(i, lambda n, _t: n.args.pop(0), f"{name}(a, b) -> {name}(b)")
            if name == "float" and module and node.args and isinstance(node.args[0], ast.Constant) \
                    and node.args[0].value in ("-inf", "inf"):
                big = -1e9 if node.args[0].value == "-inf" else 1e9
                for v in (big, 0.0):
                    emit(i, lambda n, t, v=v: _replace(t, n, ast.Constant(v)), f"float({node.args[0].value!r}) -> {v}")
            if name in ("transpose", "swapaxes", "permute") and not module:
                emit(i, lambda n, t: _replace(t, n, n.func.value), f"drop .{name}(...)")
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            if node.attr in ("T", "mT", "mH"):
                emit(i, lambda n, t: _replace(t, n, n.value), f"drop .{node.attr}")
            if node.attr == "dtype" and not (isinstance(node.value, ast.Name) and node.value.id == "torch"):
                for to in ("float32", "float64"):
                    emit(i, lambda n, t, to=to: _replace(t, n, ast.Attribute(
                        value=ast.Name(id="torch", ctx=ast.Load()), attr=to, ctx=ast.Load())),
                        f"{ast.unparse(node)[:30]} -> torch.{to}")
            if node.attr == "min" and isinstance(node.value, ast.Call) and _callee(node.value)[0] == "finfo":
                emit(i, lambda n, t: _replace(t, n, ast.Constant(-1e9)), "finfo(...).min -> -1e9")
            if node.attr == "inf" and isinstance(node.value, ast.Name) and node.value.id in ("math", "torch"):
                emit(i, lambda n, t: _replace(t, n, ast.Constant(1e9)), f"{node.value.id}.inf -> 1e9")
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple):
            items = node.slice.elts
            for k in range(len(items) - 1):
                a, b = items[k], items[k + 1]
                new_axis = [isinstance(x, ast.Constant) and x.value is None for x in (a, b)]
                if any(new_axis) and not all(new_axis):
                    def move(n, _t, k=k):
                        e = n.slice.elts
                        e[k], e[k + 1] = e[k + 1], e[k]
                    emit(i, move, f"a new axis moved (index items {k} and {k + 1} in the other order)")
        if isinstance(node, ast.FunctionDef) and node.name != "__init__":
            first_stmt = 1 if (node.body and isinstance(node.body[0], ast.Expr)
                               and isinstance(node.body[0].value, ast.Constant)) else 0  # after a docstring
            for param in _parameters(node):
                for method in ("float", "double"):
                    def widen(n, _t, name=param, method=method, at=first_stmt):
                        n.body.insert(at, ast.parse(f"{name} = {name}.{method}()").body[0])
                    emit(i, widen, f"{param} made {method} on entry to {node.name} (and never cast back)")
            last = node.body[-1]
            if isinstance(last, ast.Return) and last.value is not None and not isinstance(last.value, (ast.Tuple, ast.Constant)):
                for method, what in (("detach", "detached"), ("float", "as float32")):
                    def wrap(n, _t, method=method):
                        ret = n.body[-1]
                        ret.value = ast.Call(func=ast.Attribute(value=ret.value, attr=method, ctx=ast.Load()),
                                             args=[], keywords=[])
                    emit(i, wrap, f"{node.name} returns its result {what}")


def _second_family(nodes, emit):
    index = {id(n): i for i, n in enumerate(nodes)}
    params_of = {}  # id(Name node) -> the parameters of the innermost function around it
    for fn in nodes:
        if isinstance(fn, (ast.FunctionDef, ast.Lambda)):
            params = _parameters(fn)
            for stmt in (fn.body if isinstance(fn.body, list) else [fn.body]):
                for n in ast.walk(stmt):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in params:
                        params_of[id(n)] = params
    for i, node in enumerate(nodes):
        if isinstance(node, ast.Name) and id(node) in params_of:
            for other in params_of[id(node)]:
                if other != node.id:
                    def rename(n, _t, other=other):
                        n.id = other
                    emit(i, rename, f"parameter {other} where {node.id} is")
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in OFF_BY_ONE_CALLS:
                for arg in node.args:
                    if isinstance(arg, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) and id(arg) in index:
                        _off_by_one(index[id(arg)], arg, emit)
        if isinstance(node, ast.Slice):
            for bound in (node.lower, node.upper):
                if isinstance(bound, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) and id(bound) in index:
                    _off_by_one(index[id(bound)], bound, emit)
        if isinstance(node, (ast.Return, ast.Assign)) and isinstance(node.value, ast.Tuple) and len(node.value.elts) > 1:
            for j in range(len(node.value.elts) - 1):
                def swap(n, _t, j=j):
                    n.value.elts[j], n.value.elts[j + 1] = n.value.elts[j + 1], n.value.elts[j]
                emit(i, swap, f"items {j} and {j + 1} of the tuple in the other order")
        if (isinstance(node, ast.BinOp) and type(node.op) in IN_PLACE and isinstance(node.left, ast.Name)
                and id(node.left) in params_of):
            def in_place(n, t):
                call = ast.Call(func=ast.Attribute(value=n.left, attr=IN_PLACE[type(n.op)], ctx=ast.Load()),
                                args=[n.right], keywords=[])
                return _replace(t, n, call)
            emit(i, in_place, f"{node.left.id} changed in place (.{IN_PLACE[type(node.op)]})")


def _off_by_one(i, node, emit):
    for op, sign in ((ast.Add, "+"), (ast.Sub, "-")):
        def change(n, t, op=op):
            return _replace(t, n, ast.BinOp(left=copy.deepcopy(n), op=op(), right=ast.Constant(1)))
        emit(i, change, f"{ast.unparse(node)[:40]} -> {ast.unparse(node)[:40]} {sign} 1")


def _replace(tree, old, new) -> bool:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return True
            if isinstance(value, list):
                for k, item in enumerate(value):
                    if item is old:
                        value[k] = new
                        return True
    return False


def notebook_cells(chapter: str | Path, variant: str | None = None):
    """``(grade_id, code, is_answer, points)`` of each code cell of a chapter's source notebook (or of the
    notebook at a path), the answer cells holding the model answer, or with ``variant`` the code of that entry
    of the chapter's ``CORRECT_VARIANTS`` (``tests/mutants_NN_topic.py``) where it has some (round 14: students
    do not write the model answer, so sweep a correct answer written otherwise too)."""
    path = Path(chapter) if str(chapter).endswith(".ipynb") else ROOT / "solutions" / chapter / "exercises.ipynb"
    replaced = {}
    if variant is not None:
        import importlib
        topic = path.parent.name if str(chapter).endswith(".ipynb") else str(chapter)
        try:
            known = importlib.import_module("mutants_" + topic.replace("-", "_")).CORRECT_VARIANTS
        except ModuleNotFoundError:
            raise SystemExit(f"--variant needs a chapter (no tests/mutants_{topic.replace('-', '_')}.py)") from None
        if variant not in known:
            raise SystemExit(f"{topic} has no correct variant {variant!r}; it has {sorted(known)}")
        replaced = known[variant]
    cells = []
    for cell in load(path)["cells"]:
        if cell["cell_type"] != "code":
            continue
        meta = cell["metadata"].get("nbgrader", {})
        code = "".join(cell["source"])
        if meta.get("solution"):
            code = replaced.get(meta.get("grade_id"), code)
            code = "\n".join(line for line in code.splitlines() if line.strip() not in SOLUTION_LINES)
        cells.append((meta.get("grade_id", ""), code, bool(meta.get("solution")),
                      float(meta.get("points", 0)) if meta.get("grade") else 0.0))
    unknown = set(replaced) - {c[0] for c in cells if c[2]}
    if unknown:
        raise SystemExit(f"variant {variant!r} names answer cells the notebook does not have: {sorted(unknown)}")
    return cells


def _run_cell(namespace, gid, code, points):
    """Run one cell as the grader would (tests/cellrun.py); None, or ``(where, message)`` with ``where``
    "visible" or "hidden": the kind of the cell's top-level line that raised."""
    error, raised = run_cell(namespace, gid, code, points)
    if not error:
        return None
    line = next((lineno for frame, lineno in traceback.walk_tb(raised.__traceback__ if raised else None)
                 if frame.f_code.co_filename == f"<cell {gid}>"), 0)
    # a switch left changed (no exception) counts as hidden: the student is not told of it
    return ("hidden" if raised is None or line in _hidden_lines(code) else "visible", error[-200:])


def _part_server(prefix, answer_gid, tests, jobs, timeout, conn_w):
    """Forked once per part: run the earlier cells, then fork once per mutant."""
    as_in_a_grading_kernel(1)
    import builtins
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    for gid, code, _answer, points in prefix:
        failure = _run_cell(namespace, gid, code, points)
        if failure and points:
            os.write(conn_w, (json.dumps({"prefix_failed": [gid, failure]}) + "\n").encode())
            os._exit(0)
    for key, code in jobs:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            result = {"key": key}
            try:
                exec(compile(code, f"<cell {answer_gid}>", "exec"), namespace)
            except BaseException as err:  # noqa: BLE001
                result["result"] = ["visible", f"answer cell: {type(err).__name__}: {err}"[:200]]
            else:
                failures = []
                for gid, tcode, _a, points in tests:
                    failure = _run_cell(namespace, gid, tcode, points)
                    if failure:
                        failures.append([gid, *failure])
                if any(f[1] == "visible" for f in failures):
                    result["result"] = ["visible", "; ".join(f"{f[0]}: {f[2]}" for f in failures)[:300]]
                elif failures:
                    result["result"] = ["caught", "; ".join(f"{f[0]}: {f[2]}" for f in failures)[:300]]
                else:
                    result["result"] = ["SURVIVED", ""]
            os.write(w, (json.dumps(result) + "\n").encode())
            os._exit(0)
        os.close(w)
        data, start = b"", time.monotonic()
        while True:
            left = timeout - (time.monotonic() - start)
            ready, _, _ = select.select([r], [], [], max(left, 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                data = (json.dumps({"key": key, "result": ["timeout", f"over {timeout} s"]}) + "\n").encode()
                break
            chunk = os.read(r, 65536)
            if not chunk:
                break
            data += chunk
        os.close(r)
        _, status = os.waitpid(pid, 0)
        if not data.strip():
            data = (json.dumps({"key": key, "result": ["crashed", f"exit status {status}"]}) + "\n").encode()
        os.write(conn_w, data)
    os._exit(0)


def sweep(cells, parts: list[str] | None = None, processes: int = 1, timeout: float = 60.0, report: bool = True,
          families=FAMILIES):
    """Mutate each answer cell of ``cells`` (see :func:`notebook_cells`; only ``parts`` if given) and run
    the part's test cells on each mutant. Returns ``{grade_id: (mutants, rows)}``, a row
    ``{"key": index into mutants, "result": [kind, detail]}``."""
    plan = []
    for i, (gid, code, is_answer, _p) in enumerate(cells):
        if not is_answer or (parts and gid not in parts):
            continue
        tests = []
        for later in cells[i + 1:]:
            if later[2]:
                break
            if later[3]:
                tests.append(later)
        plan.append((gid, code, cells[:i], tests, mutants(code, families)))
    import cellrun_preload  # noqa: F401 - torch imported once, before the forks
    import torch
    torch.set_num_threads(1)
    results = {}
    running = {}
    queue = list(plan)
    while queue or running:
        while queue and len(running) < processes:
            gid, code, prefix, tests, muts = queue.pop(0)
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                try:
                    _part_server(prefix, gid, tests, [(k, m[1]) for k, m in enumerate(muts)], timeout, w)
                finally:
                    os._exit(1)
            os.close(w)
            running[r] = (pid, gid, muts, b"")
        ready, _, _ = select.select(list(running), [], [])
        for r in ready:
            pid, gid, muts, buf = running[r]
            chunk = os.read(r, 1 << 20)
            if chunk:
                running[r] = (pid, gid, muts, buf + chunk)
                continue
            os.close(r)
            os.waitpid(pid, 0)
            del running[r]
            rows = [json.loads(line) for line in buf.decode().splitlines() if line.strip()]
            results[gid] = (muts, rows)
            if report:
                _report_part(gid, muts, rows)
    return results


def _report_part(gid, muts, rows):
    if rows and "prefix_failed" in rows[0]:
        print(f"== {gid}: the cells before it failed with the model answer: {rows[0]['prefix_failed']}", flush=True)
        return
    counts = {}
    for row in rows:
        counts[row["result"][0]] = counts.get(row["result"][0], 0) + 1
    print(f"== {gid}: {len(muts)} mutants: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), flush=True)
    for row in rows:
        kind = row["result"][0]
        if kind in ("SURVIVED", "timeout", "crashed"):
            what, _text, change = muts[row["key"]]
            print(f"  {kind} {gid} #{row['key']}: {what}\n      {change}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapter")
    parser.add_argument("--part", action="append", help="grade_id of an answer cell (repeatable)")
    parser.add_argument("--processes", type=int, default=max(1, len(os.sched_getaffinity(0))))
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds for one mutant")
    parser.add_argument("--show", type=int, help="print the code of mutant #N of the (single) --part")
    parser.add_argument("--variant", help="mutate this correct variant of tests/mutants_NN_topic.py's CORRECT_VARIANTS "
                                          "instead of the model answer (in the answer cells it fills)")
    parser.add_argument("--family", choices=[*FAMILIES, "all"], default="all",
                        help="which changes: first (round 13), second (parameters swapped, off by one, tuple "
                             "order, in place), third (locals swapped, early exits left out, bounds off by one "
                             "in comparisons), fourth (tensor-level slips: masks inverted, in place on a "
                             "parameter, wrappers left out, whole reductions, dtypes lost, einsum letters "
                             "moved), or all (the default)")
    args = parser.parse_args(argv)
    families = FAMILIES if args.family == "all" else (args.family,)
    if args.show is not None:
        gid = args.part[0]
        code = next(c[1] for c in notebook_cells(args.chapter, args.variant) if c[0] == gid)
        what, text, _change = mutants(code, families)[args.show]
        print(f"# {what}\n{text}")
        return 0
    start = time.monotonic()
    sweep(notebook_cells(args.chapter, args.variant), args.part, args.processes, args.timeout, families=families)
    print(f"(done in {time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
