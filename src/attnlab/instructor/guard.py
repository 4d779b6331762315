"""Find submissions that tamper with the grading machinery.

Three checks, each reported with a reason an instructor can read, and the gate the test cells run through:

* :func:`static_findings` reads the student's cells (the ``solution`` cells) with :mod:`ast`, after
  IPython's own rewriting of ``%magic`` and ``!shell`` lines, outside the kernel: assignments into
  ``torch`` / ``numpy`` / ``math`` / ``builtins`` (or any name imported from them), ``setattr`` /
  ``delattr`` on them, rebinding or reading a helper that a locked or test cell defines (``_REF``,
  ``_ref_softmax``, ``_tensor``), rebinding a builtin that a test uses, defining an assertion helper,
  and introspection that has no place in an answer: frames (``sys._getframe``, ``inspect``,
  ``f_back``, ``tb_frame``), ``gc``, ``ctypes``, ``globals()`` / ``vars()`` / ``get_ipython()``,
  trace, profile and audit hooks, function internals (``__code__``, ``__closure__``), and
  ``__import__`` / ``exec`` / ``eval`` / ``compile`` of a name or text built at run time.
* :data:`AUDIT_SOURCE` runs in the grading kernel before the first cell. It adds an audit hook
  (:pep:`578`) that refuses every later ``sys.addaudithook`` and records the introspection events
  raised on behalf of code written in a student cell: ``sys._getframe``, ``sys._current_frames``,
  ``gc.get_objects`` / ``get_referrers`` / ``get_referents``, reading a traceback's or generator's
  frame, replacing a function's ``__code__``, ``sys.settrace`` / ``sys.setprofile``, every
  ``ctypes`` event, starting programs (``os.exec*``, ``os.system``, ``subprocess.Popen``, ``os.fork``,
  ``os.posix_spawn``), code loaded from bytes (``marshal.loads``) and unpickled references beyond
  tensors and plain containers (``pickle.loads`` of ``numpy.sqrt`` or ``builtins.__import__``, also
  through ``torch.load``). Events raised inside library code (``collections.namedtuple`` calls
  ``sys._getframe``, the import system unmarshals compiled modules) are not the student's and are not
  recorded. Once torch is loaded, the hook also answers for torch's frame-evaluation callback and
  compiled-autograd compiler (their setters become gates): nothing is set while a notebook is graded
  (torch.compile'd functions run eagerly), a callback that is not torch.compile's is refused and recorded.
* :func:`probe_expression` is fresh check code, sent again before every cell through the reply's
  ``user_expressions`` (so IPython's input and AST transformers never see it). It fingerprints what a
  hook could change: IPython's input transformers (cleanup, post, the transformer manager), AST
  transformers, custom exception handlers, event callbacks, the text formatter's printers, the
  methods of the shell and kernel classes and the shell's own overrides; the trace and profile
  functions of ``sys`` and ``threading``, ``sys.excepthook`` / ``displayhook`` / ``breakpointhook`` /
  ``unraisablehook``, ``sys.meta_path``, ``sys.path_hooks``, new kinds of finder in
  ``sys.path_importer_cache``, ``builtins.__import__``; torch's function-mode and dispatch-mode
  stacks; every attribute of ``torch``, ``torch._C``, ``torch.Tensor``, its C base, ``torch.nn.Module``
  and the other watched modules (with a Python function's code and defaults, and the modules torch's own
  functions read as they run: ``torch._VF``, ``torch.functional``, ``torch._C._nn``, ...); the dispatcher's
  kernels and the Python kernels of the operators the tests compare with or compute references with, the
  dispatch keys of the kernel's thread, saved-tensor hooks and ``torch.nn.Module``'s global hooks; the
  underscore names of the notebook. The grader process keeps the first answer and compares each later one with it
  (:func:`compare`), so nothing the student can reach holds the pristine state.

* :func:`test_cell_gate` sends a test cell with hidden tests as one line that hands the cell to the audit hook,
  which runs its visible lines in the notebook's namespace and its hidden lines in a namespace of their own (the
  grader's helpers and the locked cells' names as those cells left them, see :func:`trust_expression`): an answer
  that reaches the notebook's namespace by a route no scan reads finds nothing of the hidden tests there.

Code in the kernel can in principle lie to code in the same kernel (a replaced ``id``, a replaced
``user_expressions``); the guide's threat model says so. :func:`edited_locked_cells` compares the
submitted locked cells with the released ones by nbgrader's own checksum.
"""

from __future__ import annotations

import __future__
import ast
import builtins
import functools
import hashlib
import json
import os
import secrets

WATCHED_MODULES = ("torch", "torch.testing", "torch.testing._comparison", "torch.nn", "torch.nn.functional", "numpy",
                   "numpy.testing", "math", "builtins",
                   # what torch's own Python functions look up each time they run, so what the tests' references
                   # (torch.einsum, torch.autograd.grad, F.elu, torch.no_grad) go through: a patched
                   # torch._VF.einsum (an attribute of that module object) changed every einsum of the hidden
                   # tests, so a wrong answer matched a reference made as wrong (red team 11, white box)
                   "torch._VF", "torch.functional", "torch._C._nn", "torch._C._linalg", "torch._C._special",
                   "torch._C._fft", "torch.overrides", "torch._tensor", "torch.autograd", "torch.autograd.graph",
                   "torch.autograd.grad_mode", "torch.nn.modules.module", "torch.utils._python_dispatch",
                   # where IPython keeps each cell's text (the test cells' included) for tracebacks: a stand-in
                   # module in sys.modules, or another linecache bound in IPython's compiler module, kept the text
                   # the grader drops (red team 23)
                   "linecache", "IPython.core.compilerop")
# the aten operators behind torch.testing.assert_close, torch.equal and torch.allclose (red team 9: a kernel
# registered for aten::isclose from Python made every comparison pass)
COMPARE_OPS = tuple("aten::" + op for op in (
    "_local_scalar_dense", "abs", "add.Tensor", "all", "allclose", "bitwise_and_.Tensor", "bitwise_or_.Tensor",
    "eq.Tensor", "eq.Scalar", "equal", "le.Tensor", "le.Scalar", "mul.Tensor", "ne.Tensor", "sub.Tensor", "isclose",
    "isnan", "isfinite", "logical_not", "logical_and", "clone", "copy_", "_to_copy", "detach", "sum", "max", "min",
    "lt.Tensor", "gt.Tensor", "ge.Tensor", "where.self", "masked_fill.Scalar"))
# the aten operators behind the tests' own references (torch.einsum, torch.exp, softmax, a Linear, the random
# draws): a kernel registered for aten::bmm from Python changes every einsum of a hidden test's reference, so a
# wrong answer can be met by a reference made as wrong (red team 11, white box). Dumped like COMPARE_OPS (10 ms)
REFERENCE_OPS = tuple("aten::" + op for op in (
    "exp", "log", "amax", "amin", "bmm", "mm", "mv", "dot", "matmul", "einsum", "addmm", "baddbmm", "linear", "_softmax",
    "_log_softmax", "softmax.int", "log_softmax.int", "logsumexp", "div.Tensor", "div.Scalar", "sqrt", "rsqrt", "tanh",
    "sigmoid", "relu", "elu", "gelu", "silu", "cos", "sin", "cat", "stack", "pow.Tensor_Scalar", "pow.Tensor_Tensor",
    "neg", "reciprocal", "square", "mean", "mean.dim", "sum.dim_IntList", "prod", "max.dim", "min.dim", "maximum",
    "minimum", "argmax", "topk", "sort", "argsort", "gather", "index_select", "index.Tensor", "embedding", "clamp",
    "clamp_min", "clamp_max", "masked_fill.Tensor", "tril", "triu", "cumsum", "native_layer_norm", "layer_norm",
    "scaled_dot_product_attention", "_scaled_dot_product_attention_math", "randn", "rand", "randint", "randperm",
    "normal_", "uniform_", "random_.from", "multinomial", "bincount", "to.dtype", "frexp.Tensor", "ldexp.Tensor",
    "nextafter", "round", "nan_to_num", "isinf", "any", "arange", "ones", "zeros", "full", "eye", "empty.memory_format",
    "expand", "view", "reshape", "transpose.int", "permute", "select.int", "slice.Tensor", "unsqueeze", "squeeze.dim",
    "mul.Scalar", "add.Scalar", "sub.Scalar", "rsub.Scalar", "floor", "sign", "var", "std", "linalg_vector_norm",
    "outer", "flip", "roll", "repeat", "split.Tensor", "mse_loss", "nll_loss_forward", "cross_entropy_loss"))
# modules whose own classes are watched too: torch.testing.assert_close (the helpers' _close) is built on the pair
# classes of torch.testing._comparison, whose methods a patch could make agree with anything (red team 9)
WATCHED_CLASS_MODULES = ("torch.testing._comparison",)
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
    return set(_defined_names(tuple(sources)))


# the grader's cells are the same for every notebook of a chapter: parsed once per grading process, not once per
# notebook (about 0.3 s of a notebook's grading)
@functools.lru_cache(maxsize=32)
def _defined_names(sources: tuple[str, ...]) -> frozenset[str]:
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
    return frozenset(n for n in names if not _is_ipython_name(n))


def used_builtins(sources: list[str]) -> set[str]:
    """Builtin names that the given (test) cells read, such as ``isinstance`` or ``len``."""
    return set(_used_builtins(tuple(sources)))


@functools.lru_cache(maxsize=32)
def _used_builtins(sources: tuple[str, ...]) -> frozenset[str]:
    used = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        used |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return frozenset(used & set(dir(builtins)))


# switches that the usual reproducibility snippet sets (`torch.backends.cudnn.deterministic = True`)
TORCH_SWITCHES = frozenset({
    "torch.backends.cudnn.deterministic", "torch.backends.cudnn.benchmark", "torch.backends.cudnn.enabled",
    "torch.backends.cudnn.allow_tf32", "torch.backends.cuda.matmul.allow_tf32",
    "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
    "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction"})


def _patch_findings(cell_id: str, tree: ast.Module, protected: set[str], test_builtins: set[str]) -> list[str]:
    """Assignments and rebindings that patch modules, builtins or the tests' helpers."""
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
                if isinstance(node, ast.Assign) and _dotted(target) in TORCH_SWITCHES and isinstance(
                        node.value, ast.Constant) and isinstance(node.value.value, bool):
                    continue  # a reproducibility snippet: numerics switches of GPU back ends, nothing a test reads
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
    # rebinding, in the notebook's namespace, of a test helper, an assertion helper, or a builtin a test relies on
    for name, at in module_bindings(tree):
        imported = isinstance(at, (ast.Import, ast.ImportFrom))
        if name in protected:
            findings.append(f"{where(at)}: redefines {name}, which the tests use")
        elif name in test_builtins:
            findings.append(f"{where(at)}: {shadow_note(name)}")
        elif name in ASSERT_HELPERS and not imported:
            findings.append(f"{where(at)}: defines an assertion helper named {name}")
        elif name in ("torch", "np", "numpy", "math", "nn", "F") and not imported:
            findings.append(f"{where(at)}: rebinds the module name {name}")
    return findings


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def module_bindings(tree: ast.Module) -> list[tuple[str, ast.AST]]:
    """Every name the cell binds in the notebook's namespace, with the node that binds it: assignments
    of any form (``for`` and ``with`` targets, ``except ... as``, ``:=``, ``match`` captures, ``del``),
    definitions and imports at the top level, and names a function declares ``global`` and binds."""
    found: list[tuple[str, ast.AST]] = []

    def binds(node) -> list[str]:
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            return [node.id]
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return [(a.asname or a.name).split(".")[0] for a in node.names]
        if isinstance(node, ast.ExceptHandler) and node.name:
            return [node.name]
        if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            return [node.name]
        if isinstance(node, ast.MatchMapping) and node.rest:
            return [node.rest]
        return []

    def visit(node, top: bool, comprehension: bool = False):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _SCOPES):
                if top:
                    if not isinstance(child, ast.Lambda):
                        found.append((child.name, child))
                    for deco in getattr(child, "decorator_list", []):
                        visit(deco, True)
                if not isinstance(child, ast.ClassDef):
                    declared = {n for g in ast.walk(child) if isinstance(g, ast.Global) for n in g.names}
                    found.extend((n.id, n) for n in ast.walk(child) if isinstance(n, ast.Name)
                                 and isinstance(n.ctx, (ast.Store, ast.Del)) and n.id in declared)
                else:
                    visit(child, False)
                continue
            if isinstance(child, _COMPREHENSIONS):
                # the loop variables are the comprehension's own; a := inside binds the enclosing scope
                if top:
                    found.extend((n.target.id, n) for n in ast.walk(child) if isinstance(n, ast.NamedExpr))
                continue
            if top:
                found.extend((name, child) for name in binds(child))
            visit(child, top)

    visit(tree, True)
    return found


# introspection that no answer needs, by attribute (or ``getattr`` literal) name
FRAME_ATTRS = {"f_back", "f_locals", "f_globals", "f_builtins", "f_code", "f_trace", "tb_frame", "tb_next",
               "gi_frame", "cr_frame", "ag_frame", "_getframe", "_current_frames", "currentframe",
               "getouterframes", "getinnerframes", "walk_stack", "walk_tb", "exc_info", "last_traceback",
               "last_value", "__traceback__"}
GC_ATTRS = {"get_objects", "get_referrers", "get_referents"}
# where the kernel keeps the request it is running: a test cell's request holds the cell's whole code, hidden
# tests included (red team 16: `get_ipython().kernel.get_parent("shell")["content"]["code"]`, printed encoded)
KERNEL_ATTRS = {"get_parent", "get_parents", "parent_header", "_parent_header", "_parents", "_parent_ident",
                "shell_stream", "shell_streams", "iopub_socket", "iopub_thread"}
HOOK_ATTRS = {"settrace", "setprofile", "addaudithook", "input_transformers_post",
              "input_transformers_cleanup", "input_transformer_manager", "ast_transformers", "set_custom_exc",
              "custom_exceptions", "CustomTB", "showtraceback", "_showtraceback", "run_cell", "run_cell_async",
              "run_ast_nodes", "run_code", "transform_cell", "transform_ast", "user_expressions", "meta_path",
              "path_hooks", "path_importer_cache", "excepthook", "displayhook", "breakpointhook", "unraisablehook",
              "TorchFunctionMode", "TorchDispatchMode", "_push_mode", "_pop_mode",
              "_push_on_torch_function_stack", "_push_on_torch_dispatch_stack", "enable_torch_function_mode",
              # switching torch's modes off, so that the tests' own function or dispatch modes see nothing
              "DisableTorchFunction", "DisableTorchFunctionSubclass", "_DisableTorchDispatch", "_disable_current_modes",
              "_pop_torch_function_stack", "_pop_torch_dispatch_stack", "_set_dispatch_mode", "_unset_dispatch_mode",
              "_ExcludeDispatchKeyGuard", "_DisablePythonDispatcher", "_disabled_torch_function_impl",
              "_disabled_torch_dispatch_impl",
              # the same from inside a function the tests call, restored before it returns, so that no check
              # between cells sees it: a (T, S, Dh) tensor built under _pop_mode_temporarily, torch.cdist with
              # the Python dispatch key excluded, both unseen by the test's dispatch-mode watch (red team 11)
              "_pop_mode_temporarily", "_dispatch_tls_set_dispatch_key_excluded",
              "_dispatch_tls_set_dispatch_key_included", "_IncludeDispatchKeyGuard", "_ForceDispatchKeyGuard",
              "_PreserveDispatchKeyGuard", "_get_dispatch_stack_at", "_get_function_stack_at", "_VF",
              # hooks that run inside the tests' own reference computations: saved-tensor hooks left pushed,
              # global module hooks (red team 11)
              "saved_tensors_hooks", "_push_saved_tensors_default_hooks", "_pop_saved_tensors_default_hooks",
              "register_module_forward_hook", "register_module_forward_pre_hook", "register_module_backward_hook",
              "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
              "register_module_buffer_registration_hook", "register_module_module_registration_hook",
              "register_module_parameter_registration_hook",
              # torch's Python dispatcher, which runs the Python kernels of an operator (red team 11)
              "_EnablePythonDispatcher", "enable_python_dispatcher", "py_kernels", "_dispatch_cache",
              "python_key_table",
              "display_formatter", "user_ns", "user_global_ns",
              # torch's own operators replaced from Python: kernels registered for aten ops (red team 9)
              # (red team 27: torch.backends.mps imports Library as _Library; the audit hook refuses it anyway)
              "Library", "_Library", "_dispatch_library", "custom_op", "register_kernel", "register_fake", "py_impl"}
# the source and the stack of the running cells: while a test calls an answer, its own lines are there
# a signal handler is handed the running frame, the test's, with no audit event on the way (red team 16 F14: a 5 ms
# timer read 25 frames of a hidden test); the module is reachable under other names (`subprocess.signal`)
SIGNAL_ATTRS = {"setitimer", "alarm", "set_wakeup_fd", "pthread_kill", "siginterrupt", "getitimer", "default_int_handler"}
# the tests' own watches, reached: torch hands the running function and dispatch modes to whoever asks, and a mode
# keeps what it saw in itself (red team 18 F2: `_get_current_dispatch_mode()` gave the answer the hidden `Watch`,
# whose `ops` and `largest` it set back after using the op and the tensor Part 2 forbids). Every name that hands
# out a mode or its module, by attribute, import or text; switching modes off is in HOOK_ATTRS
MODE_ATTRS = {"_get_current_dispatch_mode", "_get_current_dispatch_mode_stack", "_get_current_dispatch_mode_pre_dispatch",
              "_get_dispatch_mode_pre_dispatch", "_get_current_function_mode", "_get_current_function_mode_stack",
              "_get_dispatch_mode", "_len_torch_dispatch_stack", "_len_torch_function_stack",
              "_len_torch_dispatch_stack_pre_dispatch", "_detect_infra_mode", "_disable_infra_mode", "_unset_infra_mode",
              "_unset_mode", "_set_mode_pre_dispatch", "_pop_mode_from_pre_dispatch",
              "_temporarily_pop_modes_from_pre_dispatch", "_python_dispatch", "_mode_utils"}
MODE_MODULES = ("_python_dispatch", "_mode_utils")
SOURCE_ATTRS = {"linecache", "extract_stack", "format_stack", "print_stack", "StackSummary", "getsource",
                "getsourcelines", "findsource"}
FUNC_ATTRS = {"__code__", "__closure__", "cell_contents", "__globals__", "__builtins__", "__defaults__",
              "__kwdefaults__", "__subclasses__", "co_consts", "co_code"}
WATCHED_ATTRS = FRAME_ATTRS | GC_ATTRS | HOOK_ATTRS | FUNC_ATTRS | SOURCE_ATTRS | KERNEL_ATTRS | SIGNAL_ATTRS | MODE_ATTRS
# modules whose only use in an answer would be to look into or hook the grader
INTROSPECTION_MODULES = {"inspect": "inspect", "gc": "gc", "ctypes": "ctypes", "IPython": "IPython",
                         "ipykernel": "ipykernel", "dis": "dis", "pdb": "pdb", "bdb": "bdb", "_ctypes": "ctypes",
                         "faulthandler": "faulthandler", "tracemalloc": "tracemalloc", "sysconfig": None,
                         # the notebook's own namespace, a lookup by dotted name, the source of the tests' cells
                         "__main__": "__main__", "pydoc": "pydoc", "linecache": "linecache",
                         # a signal handler is handed the running frame: the test's, with its expected values
                         "signal": "signal"}
NAMESPACE_CALLS = {"globals", "vars", "locals", "get_ipython", "breakpoint"}
# modules with honest uses in a notebook (freeing memory before a GPU run, measuring memory, reading a
# signature, showing a table, a debugging import left behind): importing them is fine, and these attributes
# of them; any other attribute, the module handed on as a value, or the module under another name is flagged
# (red team 16: `import gc; gc.collect()` flagged an honest notebook)
SAFE_MODULE_ATTRS = {
    "gc": {"collect", "disable", "enable", "isenabled", "freeze", "unfreeze", "get_freeze_count", "get_count",
           "get_threshold", "set_threshold", "get_stats", "is_tracked", "is_finalized"},
    "tracemalloc": {"start", "stop", "is_tracing", "get_traced_memory", "reset_peak", "clear_traces",
                    "get_tracemalloc_memory", "get_traceback_limit"},
    "inspect": {"signature", "Signature", "Parameter", "BoundArguments", "isclass", "isfunction", "ismethod",
                "ismodule", "isbuiltin", "isroutine", "iscoroutinefunction", "isgeneratorfunction", "isabstract",
                "getdoc", "cleandoc", "getfullargspec"},
    "IPython": {"display"},
    "pdb": set(), "bdb": set(),
}
# modules of the interpreter that an answer only ever uses through their attributes
_INTERPRETER_MODULES = {"sys", "builtins", "__builtins__", "importlib", "types", "signal"}
# roots under which a namespace is a module's (or the interpreter's), not an object of the student's
_RISKY_ROOTS = {"builtins", "__builtins__", "sys", "os", "threading", "gc", "inspect", "importlib", "types", "torch",
                "np", "numpy", "math", "F", "nn", "IPython", "ipykernel", "__main__", "operator", "functools"}
DYNAMIC_CALLS = {"__import__", "exec", "eval", "compile", "import_module"}


def _why(attr: str) -> str:
    if attr in FRAME_ATTRS:
        return f"reads stack frames or tracebacks ({attr}), where the tests keep their expected values"
    if attr in GC_ATTRS:
        return f"searches the interpreter's objects ({attr}), where the tests keep their expected values"
    if attr in FUNC_ATTRS:
        return f"reads or changes the internals of functions or classes ({attr})"
    if attr in SOURCE_ATTRS:
        return f"reads the source or the stack of the running cells ({attr}), where the tests keep their code"
    if attr in SIGNAL_ATTRS:
        return f"sets a signal or a timer ({attr}), whose handler is handed the running test's frame"
    if attr in KERNEL_ATTRS:
        return f"reads the kernel's request ({attr}), which holds the running test cell's code"
    if attr in MODE_ATTRS:
        return f"reaches torch's stacks of function and dispatch modes ({attr}), where the tests' watches are"
    return f"installs or reads a hook into the interpreter, IPython or torch ({attr})"


def _literal_text(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))


def _parse_text(text: str | bytes) -> ast.Module | None:
    """Code text as ``exec`` or a library reads it: plain, or with ``barry_as_FLUFL``, which a cell can switch
    on and ``exec`` then inherits (red team 16); None if it parses neither way."""
    for flags in (0, __future__.barry_as_FLUFL.compiler_flag):
        try:
            return compile(text, "<text>", "exec", ast.PyCF_ONLY_AST | flags, dont_inherit=True)
        except (SyntaxError, ValueError, TypeError):
            continue
        except (RecursionError, MemoryError):
            return None
    return None


def code_in_string(text: str) -> ast.Module | None:
    """The code a string holds, when it looks like code that library code may run (an annotation that
    ``typing.get_type_hints`` evaluates, a ``timeit`` statement, a doctest; red team 16): text that parses and
    calls, imports, or reads an attribute or an item. None for prose, names and numbers."""
    stripped = text.strip()
    if len(stripped) > 100_000 or not (any(ch in stripped for ch in "(.[=;\n")
                                       or stripped.startswith(("import ", "from "))):
        return None
    inner = _parse_text(text)
    if inner is None or not any(isinstance(n, (ast.Call, ast.Import, ast.ImportFrom, ast.Attribute, ast.Subscript))
                                for n in ast.walk(inner)):
        return None
    return inner


def _harmless_namespace_calls(tree: ast.Module) -> set[int]:
    """``globals``/``vars``/``locals`` names in calls that read nothing of the tests: ``name in globals()``
    (a notebook's re-run guard), ``vars(obj)`` of an object (its ``__dict__``), ``locals()`` inside a function
    (its own frame) (red team 16: each flagged an honest notebook)."""
    harmless = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and all(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            for c in node.comparators:
                if (isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "globals"
                        and not c.args and not c.keywords):
                    harmless.add(id(c.func))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars"
              and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], (ast.Name, ast.Attribute))
              and _root(node.args[0]) not in _RISKY_ROOTS | set(SAFE_MODULE_ATTRS)):
            harmless.add(id(node.func))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for sub in ast.walk(node):
                if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "locals"
                        and not sub.args and not sub.keywords):
                    harmless.add(id(sub.func))
    return harmless


def _introspection_findings(cell_id: str, tree: ast.Module, protected: set[str], depth: int = 0) -> list[str]:
    """Introspection, hooks and run-time code that have no place in an answer."""
    findings = []
    if depth > 8:
        return [f"cell {cell_id}: holds code in strings nested too deeply for this check to read"]
    # names the cell binds: `assigned` by assignment, definition, argument or `except ... as`; `bound` by imports too
    assigned = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            assigned |= {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            assigned.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imported |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            assigned.add(node.name)
    bound = assigned | imported

    def add(node, text):
        findings.append(f"cell {cell_id}, line {getattr(node, 'lineno', '?')}: {text}")

    magics = {id(node.func.value.func) for node in ast.walk(tree) if _magic_call(node)}
    harmless = _harmless_namespace_calls(tree)
    # a module with honest uses, imported under another name, escapes the attribute rule below
    module_alias = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in _RISKY_ROOTS | set(SAFE_MODULE_ATTRS):
                    module_alias[a.asname or a.name.split(".")[0]] = a.name.split(".")[0]
    # names bound to a torch module (`import torch.overrides as ov`, `from torch.utils import _python_dispatch as pd`):
    # the dotted module each stands for, for the rule on getattr with a name built at run time
    torch_alias = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "torch" and a.asname:
                    torch_alias[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch" and not node.level:
            for a in node.names:
                torch_alias[a.asname or a.name] = f"{node.module}.{a.name}"
    # names used as `module.attr` (checked attribute by attribute below), not as values
    attribute_roots = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    # `if __name__ == "__main__":` names the notebook's module honestly; any other "__main__" reaches its namespace
    main_guard = {id(c) for node in ast.walk(tree) if isinstance(node, ast.Compare)
                  and any(isinstance(n, ast.Name) and n.id == "__name__" for n in [node.left, *node.comparators])
                  for c in [node.left, *node.comparators]}

    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                if name == "IPython.display" or name.startswith("IPython.display.") or (
                        isinstance(node, ast.ImportFrom) and name == "IPython"
                        and all(a.name == "display" for a in node.names)):
                    continue  # showing a table or a plot is an ordinary thing for an answer to do
                if name in SAFE_MODULE_ATTRS:
                    if isinstance(node, ast.Import):
                        alias = next(a for a in node.names if a.name == name)
                        if alias.asname in (None, name):
                            continue  # its attributes are checked where they are used
                        add(node, f"imports {name} as {alias.asname}, which hides what it is used for")
                        continue
                    unsafe = [a.name for a in node.names if a.name not in SAFE_MODULE_ATTRS[name]]
                    if not unsafe:
                        continue
                    add(node, f"imports {', '.join(unsafe)} from {name}, which looks into or hooks the grader's code")
                    continue
                if top in INTROSPECTION_MODULES and INTROSPECTION_MODULES[top]:
                    add(node, f"imports {name}, which looks into or hooks the grader's code")
                elif any(part in MODE_MODULES for part in name.split(".")):
                    add(node, f"imports {name}: " + _why(next(p for p in name.split(".") if p in MODE_MODULES)))
                elif name == "torch.library" or name.startswith("torch.library.") or (
                        isinstance(node, ast.ImportFrom) and name == "torch"
                        and any(a.name == "library" for a in node.names)):
                    add(node, "imports torch.library, which replaces torch's own operators")
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name in WATCHED_ATTRS | NAMESPACE_CALLS:
                        add(node, f"imports {alias.name}: " + _why(alias.name))
        elif isinstance(node, ast.Attribute):
            module = node.value.id if isinstance(node.value, ast.Name) else None
            module = module_alias.get(module, module)
            if node.attr in WATCHED_ATTRS:
                add(node, f"uses {_dotted(node)}: " + _why(node.attr))
            elif module in SAFE_MODULE_ATTRS and node.attr not in SAFE_MODULE_ATTRS[module]:
                add(node, f"uses {_dotted(node)}, which looks into or hooks the grader's code")
            elif node.attr in NAMESPACE_CALLS and isinstance(node.ctx, ast.Load) and (
                    node.attr in ("globals", "get_ipython", "breakpoint") or _root(node) in _RISKY_ROOTS
                    or _root(node) in module_alias or _root(node) is None):
                # `builtins.globals()` is the caller's namespace, the notebook's (red team 16)
                add(node, f"uses {_dotted(node)}, which reaches the notebook's namespace or IPython itself")
            elif node.attr == "__dict__" and (_root(node) in _RISKY_ROOTS or _root(node) in module_alias
                                              or _root(node) is None):
                add(node, f"reads {_dotted(node)}, the namespace of a module or of the interpreter")
            elif node.attr == "signal" and _root(node) not in ("torch", None) and _root(node) not in assigned:
                add(node, f"uses {_dotted(node)}: the signal module, whose handlers are handed the running test's frame")
            elif node.attr == "library" and _root(node) == "torch":
                add(node, f"uses {_dotted(node)}, which replaces torch's own operators")
            elif node.attr in protected and node.attr.lower().startswith(("_ref", "_check")):
                add(node, f"reads {node.attr}, a helper of the grader's tests, as an attribute")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in main_guard:
            text = node.value.strip()
            if text == "__main__" or text.startswith("__main__."):
                add(node, "names the module __main__, which is the notebook's namespace with the tests' helpers")
            elif text in protected or text.split(".")[-1] in protected:
                add(node, f"names {text}, a helper of the grader's tests")
            elif text.startswith("torch") and any(part in MODE_MODULES for part in text.split(".")):
                add(node, f"names the module {text}: " + _why(next(p for p in text.split(".") if p in MODE_MODULES)))
            elif (inner := code_in_string(node.value)) is not None:  # red team 16: `def f(x: "globals()")`
                for f in _introspection_findings(cell_id, inner, protected, depth + 1):
                    add(node, "holds code in a string that " + f.split(": ", 1)[-1])
        elif isinstance(node, ast.Subscript):
            key = _folded_text(node.slice)
            if key in NAMESPACE_CALLS | WATCHED_ATTRS:
                add(node, f"looks up {key!r} by name: " + (_why(key) if key in WATCHED_ATTRS else
                                                          "it reaches the notebook's namespace or IPython itself"))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id in protected and node.id not in bound:
                add(node, f"reads {node.id}, a helper of the grader's tests")
            elif node.id in NAMESPACE_CALLS and id(node) not in magics and id(node) not in harmless:
                add(node, f"uses {node.id}, which reaches the notebook's namespace or IPython itself")
            elif node.id in ("__builtins__", "__attnlab_audit__") or node.id.startswith("__attnlab"):
                add(node, f"reads {node.id}, which belongs to the interpreter or the grader")
            elif node.id in DYNAMIC_CALLS and node.id not in bound and not any(
                    isinstance(p, ast.Call) and p.func is node for p in ast.walk(tree)):
                # `run = exec; run(text)`: the call below would escape the rule on calls of these names
                add(node, f"hands on {node.id} as a value, so that what it runs cannot be read")
            elif node.id in SAFE_MODULE_ATTRS and id(node) not in attribute_roots and node.id not in assigned:
                add(node, f"hands on the module {node.id} as a value, which hides what it is used for")
            elif (node.id in _INTERPRETER_MODULES and id(node) not in attribute_roots and node.id not in assigned
                  and id(node) not in harmless):
                # red team 16: `s = sys` then `vars(s)["modules"]` got past the rules that read `sys.` and `vars(sys)`
                add(node, f"hands on the module {node.id} as a value, which hides what it is used for")
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            first = node.args[0] if node.args else None
            if name in ("__import__", "import_module") and _literal_text(first) and isinstance(first.value, str):
                # a module imported by a call is imported all the same (red team 16: `__import__("signal")`)
                top = first.value.split(".")[0]
                if top in INTROSPECTION_MODULES and INTROSPECTION_MODULES[top]:  # safe ones too: under any name
                    add(node, f"imports {first.value}, which looks into or hooks the grader's code")
            # `model.eval()` and `re.compile(...)` are methods of the student's objects or of other modules, not
            # the builtins (an honest `model.eval()` was flagged as code built at run time)
            if name in DYNAMIC_CALLS and not (isinstance(func, ast.Attribute) and name in ("compile", "eval", "exec")
                                             and _root(func) not in ("builtins", "__builtins__")):
                if not _literal_text(first):
                    add(node, f"calls {name} with code or a name built at run time, which this check cannot read")
                elif name in ("exec", "eval", "compile"):
                    inner = _parse_text(first.value)
                    if inner is None:
                        add(node, f"calls {name} with text this check cannot parse")
                    else:
                        findings += _introspection_findings(cell_id, inner, protected, depth + 1)
                if name == "compile" and (len(node.args) > 3 or any(k.arg in ("flags", "dont_inherit")
                                                                    for k in node.keywords)):
                    add(node, "calls compile with flags, which changes how the text is read")
            # attribute names given as text elsewhere: operator.attrgetter("f.__globals__"), methodcaller,
            # object.__getattribute__(f, "__globals__")
            literal = (first if name in ("attrgetter", "methodcaller") else node.args[1] if name in (
                "__getattribute__", "__getattr__", "__setattr__", "__delattr__") and len(node.args) > 1 else None)
            if _literal_text(literal) and isinstance(literal.value, str):
                for part in literal.value.split("."):
                    if part in WATCHED_ATTRS:
                        add(node, f"uses {name}(... {part!r} ...): " + _why(part))
                    elif part in NAMESPACE_CALLS | {"__dict__"}:
                        add(node, f"uses {name}(... {part!r} ...), which reaches a namespace")
            elif literal is not None and _disguised(literal):
                add(node, f"calls {name} with an attribute name disguised at run time ({_dotted(literal)}), "
                          "which can only be meant to get past this check")
            if name in ("getattr", "setattr", "delattr", "hasattr") and isinstance(func, ast.Name) and len(node.args) > 1:
                attr = node.args[1]
                if _literal_text(attr):
                    if attr.value in WATCHED_ATTRS:
                        add(node, f"uses {name}(..., {attr.value!r}): " + _why(attr.value))
                    elif attr.value in NAMESPACE_CALLS or (attr.value == "__dict__" and (
                            _root(node.args[0]) in _RISKY_ROOTS | set(module_alias) or _root(node.args[0]) is None)):
                        add(node, f"uses {name}(..., {attr.value!r}), which reaches a namespace")
                elif _folded_text(attr) is not None and (_folded_text(attr) in WATCHED_ATTRS or (
                        _folded_text(attr).startswith("__") and _folded_text(attr).endswith("__"))):
                    # a name spelt in pieces ('__glob' + 'als__'): only to get past this check
                    add(node, f"uses {name}(..., {_folded_text(attr)!r}) with the name built from pieces: "
                              + _why(_folded_text(attr)))
                elif _disguised(attr):
                    add(node, f"calls {name} with an attribute name disguised at run time ({_dotted(attr)}), "
                              "which can only be meant to get past this check")
                elif _root(node.args[0]) in _MODULE_ROOTS or isinstance(node.args[0], ast.Call) or (
                        _torch_path(node.args[0], torch_alias)[:1] == ["torch"]
                        and set(_torch_path(node.args[0], torch_alias)) & _TORCH_INTERNALS):
                    add(node, f"calls {name} on {_dotted(node.args[0])} with a name built at run time, "
                              "which this check cannot read")
    return findings


def _torch_path(node: ast.AST, torch_alias: dict[str, str]) -> list[str]:
    """The dotted parts of ``a.b.c`` with a name bound to a torch module spelt out (``pd.x`` after ``from torch.utils
    import _python_dispatch as pd`` is ``torch.utils._python_dispatch.x``)."""
    root, dotted = _root(node), _dotted(node)
    return (torch_alias[root] + dotted[len(root):] if root in torch_alias else dotted).split(".")


def _folded_text(node: ast.AST, depth: int = 0) -> str | None:
    """The text of an expression built only from string literals (``'__glob' + 'als__'``, an f-string of
    literals, ``''.join([...])`` of literals), else None."""
    if depth > 50:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _folded_text(node.left, depth + 1), _folded_text(node.right, depth + 1)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        parts = [_folded_text(v, depth + 1) if not isinstance(v, ast.FormattedValue)
                 else _folded_text(v.value, depth + 1) for v in node.values]
        return None if any(p is None for p in parts) else "".join(parts)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
            and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple))):
        glue = _folded_text(node.func.value, depth + 1)
        parts = [_folded_text(e, depth + 1) for e in node.args[0].elts]
        return None if glue is None or any(p is None for p in parts) else glue.join(parts)
    return None


# what turns text into a name only at run time: a literal read backwards or in pieces (`"__slabolg__"[::-1]`),
# characters by number, a decoding (red team 11: `getattr(answer, "__slabolg__"[::-1])["FER_"[::-1]]` reached the
# tests' captured functions, and an answer poisoned `_REF["einsum"]` while the test ran and put it back after)
_DISGUISING_CALLS = {"reversed", "chr", "dir", "decode", "b64decode", "b32decode", "b16decode", "a85decode", "b85decode",
                     "fromhex", "translate", "maketrans", "swapcase", "unhexlify"}


def _disguised(node: ast.AST) -> bool:
    """An attribute name built from text in a way no honest code builds one."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript) and _folded_text(sub.value) is not None:
            return True
        if isinstance(sub, ast.Call):
            called = sub.func.id if isinstance(sub.func, ast.Name) else (
                sub.func.attr if isinstance(sub.func, ast.Attribute) else None)
            if called in _DISGUISING_CALLS:
                return True
    return False


# modules where a name built at run time can only be looking for a hook or a frame
_MODULE_ROOTS = {"builtins", "__builtins__", "sys", "os", "threading", "gc", "inspect", "importlib", "types"}
# torch's internals, where a name built at run time can only be looking for a switch of the tests' modes
# (`getattr(torch._C, "_dispatch_tls_" + ...)`); `getattr(torch, name)` of a dtype stays allowed
_TORCH_INTERNALS = {"_C", "_VF", "_python_dispatch", "overrides", "_ops", "graph", "_autograd"}


class TooDeep(Exception):
    """A cell nested too deeply for the parser (a sum of 200,000 terms): nothing can be said about it."""


# IPython's transform of a cell costs about (lines of IPython syntax) x (length of the cell): 300 `%time` lines in
# a 189 KB cell held the grader for minutes. Past this product the cell is not transformed but flagged
IPYTHON_WORK_LIMIT = 2_000_000


def ipython_work(source: str) -> int:
    """The lines of IPython syntax (``%magic``, ``!shell``, ``x?``) times the length of the cell."""
    special = sum(1 for line in source.splitlines()
                  if line.lstrip().startswith(("%", "!", "?")) or line.rstrip().endswith("?"))
    return special * len(source)


def _parse_cell(source: str) -> ast.Module | None:
    """The cell as IPython runs it (``%magic`` and ``!shell`` lines become calls), parsed; None if it does
    not parse (it then fails when it runs, too). Raises :class:`TooDeep` for a cell too deep to parse."""
    if ipython_work(source) > IPYTHON_WORK_LIMIT:
        raise TooDeep(f"{len(source)} characters with many lines of IPython commands")
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        source = TransformerManager().transform_cell(source)
    except Exception:  # IPython missing or unable to transform: parse the text as it is
        pass
    try:
        try:
            return ast.parse(source)
        except SyntaxError:
            # `from __future__ import barry_as_FLUFL` in an earlier cell stays on in IPython, and `<>` then
            # parses there: read the cell with that flag too, or such a cell would escape the scan
            return compile(source, "<cell>", "exec", ast.PyCF_ONLY_AST | __future__.barry_as_FLUFL.compiler_flag,
                           dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    except (RecursionError, MemoryError) as err:
        raise TooDeep(type(err).__name__) from None


def static_findings(cell_id: str, source: str, protected: set[str], test_builtins: set[str]) -> list[str]:
    """Reasons why a student cell looks like it patches, hooks or reads the grading machinery (empty if none)."""
    try:
        tree = _parse_cell(source)
    except TooDeep as err:
        return [f"cell {cell_id}: is nested too deeply or too long for this check to read it ({err}); graded by hand"]
    if tree is None:
        return []  # the cell fails when it runs; nothing to patch
    found = _patch_findings(cell_id, tree, protected, test_builtins) + _introspection_findings(cell_id, tree, protected)
    for code in magic_code(tree):  # %time and %%timeit run code that IPython passes as text
        found += static_findings(cell_id, code, protected, test_builtins)
    return list(dict.fromkeys(found))


def builtins_used_by_functions(sources: list[str]) -> set[str]:
    """Names that a function, lambda or class body of these cells reads without binding it there (a global
    the student's own code looks up when a test calls it), or declares ``global``."""
    from .libraries import _bound_here, _outside_functions

    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)

    used = set()
    for source in sources:
        try:
            tree = _parse_cell(source)
        except TooDeep:
            continue
        # each outermost function, lambda or class once, with the scopes nested in it (walking each nested scope
        # again on its own was quadratic: 2000 nested lambdas took 65 s); a name a nested scope binds counts as
        # bound for the scope that encloses it
        for node in _outside_functions(tree) if tree is not None else ():
            if not isinstance(node, scopes):
                continue
            inner = ast.Module(body=node.body if isinstance(node.body, list) else [ast.Expr(node.body)],
                               type_ignores=[])
            bound = _bound_here(node) - {getattr(node, "name", None)}  # its own name is looked up globally
            used |= {n.id for n in ast.walk(inner) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                     and n.id not in bound}
            # a function that declares a name global can bind it again while a test runs
            used |= {name for n in ast.walk(inner) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    return used


def shadow_note(name: str) -> str:
    return f"redefines the builtin {name}, which the tests use"


# before a test cell, the globals of the student's that shadow a builtin the tests use (a scratch `max = x.max()`)
# are put aside, and after it put back; only for names no student function reads (see grading.py)
HIDE_SHADOWS = ("setattr(__import__('sys').modules['__attnlab_audit__'], 'shadows', "
                "{n: globals().pop(n) for n in %r if n in globals()}) or None")
RESTORE_SHADOWS = ("globals().update(__import__('sys').modules['__attnlab_audit__'].__dict__.pop('shadows', {})) "
                   "or None")


# IPython magics an answer may use: these run the code they are given (scanned like the cell), those none
CODE_MAGICS = {"time", "timeit", "capture"}
PLAIN_MAGICS = {"matplotlib", "precision", "pprint"}
# help that a student leaves in an answer (`torch.topk?`, `%whos`): it shows documentation or the names the
# notebook holds, and runs no code; not on an underscore name (the grader's helpers)
HELP_MAGICS = {"pinfo", "pinfo2", "pdoc", "pdef", "psource", "pfile", "who", "whos", "who_ls", "lsmagic", "quickref"}


def _magic_call(node: ast.AST) -> tuple[str, list[str]] | None:
    """``(magic, texts)`` for ``get_ipython().run_line_magic("time", "...")`` (IPython's form of ``%time``) and
    ``run_cell_magic``, with literal arguments and an allowed magic; None otherwise."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("run_line_magic", "run_cell_magic")):
        return None
    owner = node.func.value
    if not (isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "get_ipython"
            and not owner.args and not owner.keywords):
        return None
    if node.keywords or not node.args or not all(_literal_text(a) and isinstance(a.value, str) for a in node.args):
        return None
    name = node.args[0].value
    if name in HELP_MAGICS and node.func.attr == "run_line_magic":
        target = node.args[1].value.strip() if len(node.args) > 1 else ""
        if target.startswith("_") or any(ch in target for ch in "()[];=") or ".__" in target or "._" in target:
            return None
        return name, []
    if name not in CODE_MAGICS | PLAIN_MAGICS:
        return None
    texts = [a.value for a in node.args[1:]]
    if node.func.attr == "run_line_magic" and name == "timeit":  # options first: `%timeit -n 3 f(x)`
        texts = [t.split(" ", 1)[1] if t.startswith("-") and " " in t else t for t in texts]
    return name, texts


def magic_code(tree: ast.Module) -> list[str]:
    """The code that the allowed magics of a cell run."""
    out = []
    for node in ast.walk(tree):
        call = _magic_call(node)
        if call and call[0] in CODE_MAGICS:
            out += [t for t in call[1] if t.strip()]
    return out


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


# ------------------------------------------------------------------------------------------ in the kernel

# torch's global switches that change what a test sees, back to their defaults before every test cell
# (only when the notebook has imported torch: importing it here would change what the tamper guard watches).
# torch.use_deterministic_algorithms imports torch._inductor (about 1.2 s of CPU, torch._dynamo and sympy with
# it); it is called only when there is something to put back: the flag or its warn_only set, or inductor's
# config loaded (whose `deterministic` it sets too). The number of threads goes back to the count the kernel started
# with (``threads``, read by the grader before any student code; None: not checked), the print options to torch's
# defaults (torch.set_printoptions(profile="default") also sets sci_mode back to None)
_RESET = ("(lambda t: t is not None and (t.set_grad_enabled(True), t.autograd.set_detect_anomaly(False), "
          "(t.are_deterministic_algorithms_enabled() or t.is_deterministic_algorithms_warn_only_enabled() "
          "or 'torch._inductor.config' in __import__('sys').modules) and t.use_deterministic_algorithms(False), "
          "t.set_default_dtype(t.float32), t.set_flush_denormal(False), "
          "t.set_float32_matmul_precision('highest'), %s, %s, %s) and None)"
          "(__import__('sys').modules.get('torch'))")
# the default device back to the CPU: torch.set_default_device's mode, and those `with torch.device(...)` blocks
# left on the stack, when the stack holds nothing else (any other mode is the tamper guard's to report)
_RESET_DEVICE = (
    "(lambda d: d is not None and all(type(t._C._get_function_stack_at(i)) is d.DeviceContext for i in "
    "range(t._C._len_torch_function_stack())) and ([t._C._pop_torch_function_stack() for _ in "
    "range(t._C._len_torch_function_stack())], setattr(t._GLOBAL_DEVICE_CONTEXT, 'device_context', None), "
    "setattr(d, 'CURRENT_DEVICE', None)))(__import__('sys').modules.get('torch.utils._device'))")
# torch's print options, read from the options object's own dict and only while it is torch's own (an answer may have
# put another object there, or set an option to an object of its own, whose attributes, `__setattr__` or comparisons
# would otherwise run its code inside the grader's request); a value of another type than torch's reads as "other"
_PRINT_OPTS = ("(lambda m: (lambda o: o if type(o) is m.get('__PrinterOptions') else None)(m.get('PRINT_OPTS')))"
               "(vars(t._tensor_str))")
_PRINT_DEFAULTS = "(4, 1000, 3, 80, None)"
_PRINT_NOW = ("(lambda o: 'replaced' if o is None else tuple((lambda v: v if v is None or type(v) is int or type(v) is "
              "float or type(v) is bool else 'other')(vars(o).get(n)) for n in "
              "('precision', 'threshold', 'edgeitems', 'linewidth', 'sci_mode')))(" + _PRINT_OPTS + ")")
# back to torch.set_printoptions(profile="default"), written into the options' own dict
_PRINT_RESET = ("(lambda o: o is not None and vars(o).update(precision=4, threshold=1000, edgeitems=3, linewidth=80, "
                "sci_mode=None))(" + _PRINT_OPTS + ")")


def _threads(threads) -> int | None:
    if threads is None:
        return None
    if type(threads) is not int or threads < 1:
        raise ValueError(f"the kernel's thread count must be a positive int or None, not {threads!r}")
    return threads


def reset_switches(threads: int | None = None) -> str:
    """The expression that puts torch's global switches back to their defaults before a test cell, and the number of
    threads back to ``threads`` (the count the kernel started with; None: left as it is)."""
    threads = _threads(threads)
    put_back = "None" if threads is None else f"t.get_num_threads() != {threads} and t.set_num_threads({threads})"
    return _RESET % (_PRINT_RESET, _RESET_DEVICE, put_back)


RESET_SWITCHES = reset_switches(None)
# the kernel's thread count, read once before any student code (None where torch is not loaded yet)
THREADS_AT_START = "(lambda t: None if t is None else t.get_num_threads())(__import__('sys').modules.get('torch'))"

# after a test cell: those of the switches above that are no longer at their defaults. No hidden test changes
# them, so a change there was made by an answer the test called (a function that calls torch.set_default_dtype or
# torch.set_flush_denormal and leaves it so); that test cell loses its points. A subnormal float32 quotient that
# comes out 0 shows the flush-denormal mode, which torch offers no way to read.
_CHANGED = (
    "(lambda t: '' if t is None else '; '.join(name for name, changed in ("
    "('the default dtype (torch.set_default_dtype)', t.get_default_dtype() != t.float32), "
    "('the flush-denormal mode (torch.set_flush_denormal)', "
    "float(t.full((1,), 2e-38, dtype=t.float32, device='cpu').div(4.0)[0]) == 0.0), "
    "('the float32 matmul precision (torch.set_float32_matmul_precision)', "
    "t.get_float32_matmul_precision() != 'highest'), "
    "('the grad mode (torch.set_grad_enabled)', not t.is_grad_enabled()), "
    "('anomaly detection (torch.autograd.set_detect_anomaly)', t.is_anomaly_enabled()), "
    "('deterministic algorithms (torch.use_deterministic_algorithms)', t.are_deterministic_algorithms_enabled()), "
    "('the default device (torch.set_default_device)', t._C._len_torch_function_stack() > 0 and "
    "t.get_default_device().type != 'cpu'), "
    "('the print options (torch.set_printoptions)', " + _PRINT_NOW + " != " + _PRINT_DEFAULTS + "), "
    "('the number of threads (torch.set_num_threads)', %s)"
    ") if changed))(__import__('sys').modules.get('torch'))")


def settings_changed(threads: int | None = None) -> str:
    """The expression whose value names the settings that are not at their defaults after a test cell ('' when none
    is), the number of threads compared with ``threads`` (the count the kernel started with; None: not checked)."""
    threads = _threads(threads)
    return _CHANGED % ("False" if threads is None else f"t.get_num_threads() != {threads}")


SETTINGS_CHANGED = settings_changed(None)


def settings_message(changed: str) -> str:
    """The reason a test cell fails when the answers it called left torch's process-wide settings changed."""
    return (f"while this test ran, your code changed torch's process-wide settings: {changed}. A function must "
            "leave them as it found them (the notebook's introduction says so; use a `with` block, such as "
            "`with torch.no_grad():`, for a change that should last only while it runs); they were put back")

# before a student cell: the source lines the grader's own cells left in linecache (IPython keeps every cell's
# source there for tracebacks) are dropped, so that code printing linecache finds no hidden test
def request_tag(gate: str, kind: str, what: tuple) -> str:
    """What a grader's request carries in place of the gate's secret: ``"nonce:mac"``, the keyed hash (the secret as
    key) of the request's kind, a fresh nonce and the ``repr`` of its contents. The secret itself travels once, before
    any student code (:func:`gate_expression`); the hook answers each nonce once (AUDIT_SOURCE's ``authentic``), so
    a request an answer reads while it waits (the running cell's, kernel.get_parent(), red team 24) can only be sent
    again as it is, and the grader's own copy then finds it spent (flagged)."""
    nonce = secrets.token_hex(8)
    mac = hashlib.blake2b(f"{kind}\x00{nonce}\x00{what!r}".encode(), key=gate.encode(), digest_size=16).hexdigest()
    return f"{nonce}:{mac}"


def _gate_call(event: str, gate: str, *args) -> str:
    """Code that raises the audit event ``event`` with a tag (:func:`request_tag`) and ``args``, which only the
    grader's hook answers (the gate). Sent only inside a request (:func:`request_expression`) or before any student
    code: its ``__import__`` is a name, which a global of the notebook could stand for."""
    return f"__import__('sys').audit({', '.join(map(repr, (event, request_tag(gate, event, args), *args)))})"


def _nameless(kind: str, gate: str, *args) -> str:
    """An expression that hands ``(kind, tag, *args)`` to the audit hook without looking up any name: reading the
    ``__code__`` of a lambda raises an audit event, and the hook reads the request from the lambda's default (see
    AUDIT_SOURCE). It evaluates to the lambda's box: ``[request, result]`` when the hook answered."""
    return f"(lambda f: (f.__code__, f())[1])(lambda box=[{(kind, request_tag(gate, kind, args), *args)!r}]: box)"


def request_expression(expression: str, gate: str, nonce: str) -> str:
    """A user expression for the grader: the audit hook evaluates ``expression`` in the notebook's namespace with
    every name it reads taken from the builtins as they were before any student code, and the value is
    ``[(repr of the value, keyed hash)]`` (``[]`` when the hook did not answer; see :func:`answer_of`). Reached by
    :func:`_nameless`, so no global the notebook binds (``__import__``, ``globals``) is called by the grader's code."""
    return f"{_nameless('attnlab.eval', gate, expression, nonce)}[1:]"


def answer_of(text, key: str, nonce: str):
    """The value of a request from the ``text/plain`` of its user expression: ``[value]`` when the hook answered it
    and its keyed hash checks out with ``key`` (sent by :func:`gate_expression`) and ``nonce``, else None (no answer,
    or text rewritten on its way, as a replaced display formatter would)."""
    import hmac

    try:
        value = ast.literal_eval(text) if isinstance(text, str) else None
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if not (isinstance(value, list) and len(value) == 1 and isinstance(value[0], tuple) and len(value[0]) == 2
            and all(type(v) is str for v in value[0])):
        return None
    shown, mac = value[0]
    expected = hashlib.blake2b((nonce + "\x00" + shown).encode(), key=key.encode(), digest_size=16).hexdigest()
    if not hmac.compare_digest(mac, expected):
        return None
    try:
        return [ast.literal_eval(shown)]
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def done_line(gate: str, ticket: str) -> str:
    """The last line the grader adds to a test cell without hidden lines: the hook leaves the token staged under
    ``ticket`` (:func:`stage_expression`), so the cell's request, which an answer can read while it runs, holds no
    token."""
    return f"\n{_nameless('attnlab.done', gate, ticket)} and None\n"


def forget_sources(gate: str) -> str:
    """A user expression: the grader's cells' sources out of linecache (the hook knows which files are theirs,
    and answers only the grader's secret)."""
    return _gate_call("attnlab.forget", gate)

AUDIT_MODULE = "__attnlab_audit__"
# audit events recorded when raised on behalf of a student cell (Python 3.11 names; checked by the tests)
AUDIT_EVENTS = (
    "sys.addaudithook", "sys._getframe", "sys._current_frames", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "sys.settrace", "sys.setprofile", "object.__getattr__", "object.__setattr__", "code.__new__",
    "os.exec", "os.posix_spawn", "os.spawn", "os.system", "os.fork", "os.forkpty", "subprocess.Popen", "pty.spawn",
    "ctypes.addressof", "ctypes.call_function", "ctypes.cdata", "ctypes.cdata/buffer", "ctypes.create_string_buffer",
    "ctypes.create_unicode_buffer", "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.get_errno",
    "ctypes.set_errno", "ctypes.string_at", "ctypes.wstring_at", "ctypes.PyObj_FromPtr", "ctypes.set_exception",
    "marshal.loads", "marshal.load", "pickle.find_class",
)
# what a pickle of tensors, dicts, lists and the student's own classes refers to: `pickle.loads(pickle.dumps(x))`
# is an honest deep copy. Anything else unpickled on behalf of a student cell (`numpy.sqrt`, `builtins.__import__`,
# `importlib.import_module`) calls code that no static check can read, such as another library
PICKLE_MODULES = ("torch", "collections", "copyreg", "_codecs", "__main__", "datetime", "decimal", "fractions")
PICKLE_BUILTINS = ("object", "int", "float", "complex", "str", "bytes", "bytearray", "bool", "list", "tuple", "dict",
                   "set", "frozenset", "slice", "range", "Ellipsis", "NotImplemented")
# attributes whose reading (object.__getattr__) or writing (object.__setattr__) raises an audit event
AUDIT_ATTRS = ("tb_frame", "gi_frame", "cr_frame", "ag_frame", "gi_code", "__code__", "f_code")

# Runs silently in the grading kernel before the first cell, so before any student code.
AUDIT_SOURCE = r"""
def __attnlab_install_audit__(watched, attrs, module_name, pickle_modules, pickle_builtins, prefixes):
    import _ast, os, sys, sysconfig, types
    if module_name in sys.modules:
        return
    # the test cells' gate (see guard.test_cell_gate): what it needs is taken now, before any student code, and
    # lives only in this function's closure, which the interpreter's list of audit hooks holds and no name reaches
    compile_, exec_, dict_, list_, type_, str_, isinstance_, tuple_ = compile, exec, dict, list, type, str, isinstance, tuple
    real_builtins = sys.modules["builtins"]
    # the hook's own compiles (of the grader's requests, hidden lines, gates): code named "<attnlab ...>" is the
    # grader's only when the hook made it (red team 24: code made from text could be named like it)
    raw_compile, own_compiler, get_ident = compile, [None], __import__("_thread").get_ident
    own_file = sys._getframe(0).f_code.co_filename   # where this hook's own code comes from

    def compile_(*args, **kwargs):
        own_compiler[0] = get_ident()
        try:
            return raw_compile(*args, **kwargs)
        finally:
            own_compiler[0] = None
    # the garbage collector runs the callbacks an answer left (weakref.ref and weakref.proxy callbacks, finalizers)
    # wherever a collection happens to start, in the middle of the grader's code too, with no frame of a student
    # cell on the stack (red team 24, hostile: a proxy's callback, functools.partial(exec, text, globals), read the
    # hook's frame and the grader's requests). It runs only while a student cell does (see the probe event), and
    # never while the grader's requests run
    import gc as gc_module
    gc_enable, gc_disable, gc_isenabled = gc_module.enable, gc_module.disable, gc_module.isenabled
    # ctypes, for the grader's own reads of two interpreter fields (a dict's version tag, a type's flags; see
    # install_torch_gate): loaded now, before the hook, so that loading it is no event of a cell
    import ctypes as ctypes_module
    word_at = ctypes_module.c_uint64.from_address
    # what the hook calls when an event comes is taken now, before any student code, and kept in this closure: the
    # builtins come from a copy this function runs with (see the end of this source), so a notebook global that
    # shadows one (`type = ...`) or a patched builtins module changes nothing here; and no function of a module an
    # answer can patch (os.path.realpath, os.fsdecode, types.CodeType) is looked up then. A name an event hands
    # over (a file name, a code object's co_filename) is read as an exact str, never through methods of the
    # caller's str subclass (startswith, __eq__, __contains__)
    str_str, bytes_decode = str.__str__, bytes.decode
    fs_encoding, fs_errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
    lstat, readlink, getcwd, s_islnk = os.lstat, os.readlink, os.getcwd, __import__("stat").S_ISLNK
    os_error, type_error, value_error = OSError, TypeError, ValueError

    def plain(name):
        # an exact str for a str, a str subclass or bytes (decoded as os.fsdecode would); None for anything else
        try:
            return str_str(name)
        except type_error:
            pass
        try:
            return bytes_decode(name, fs_encoding, fs_errors)
        except type_error:
            return None

    def name_of(code):
        # a code object's file name as an exact str (compile() keeps a str subclass given as the file name)
        return plain(code.co_filename) or ""
    # the gate's secret comes in a request of its own right after this one (a user expression, which no cache of
    # cell sources keeps), before any student code: the first one sets it
    trusted, hidden_state, runs, gate = {}, {}, [0], [None]
    stdlib = sysconfig.get_paths()["stdlib"]
    # library code that only passes a request through: the request is its caller's
    wrappers = frozenset(os.path.join(stdlib, name) for name in (
        "inspect.py", "traceback.py", "subprocess.py", "os.py", "linecache.py", "bdb.py", "pdb.py", "pty.py",
        os.path.join("ctypes", "__init__.py")))
    rec = types.ModuleType(module_name)
    rec.refused = 0
    # what the hook records and reads lives in this closure, never on the module (red team 17 F1, F3: an answer
    # reached the hook through the module and emptied its record, or marked its own code as the grader's): the
    # grader's probe reaches it through the gate (the event "attnlab.probe", with the secret)
    st = types.SimpleNamespace(events=[], files={}, cell=None, timed=None)
    getframe, watched, attrs, busy = sys._getframe, frozenset(watched), frozenset(attrs), [False]
    # the timing magics compile the cell's code as a syntax tree (the compile event then has no file name)
    # under these names: such code belongs to the last student cell that compiled a tree (no grader cell times
    # anything). Not "<string>": namedtuple and dataclasses compile their methods under that name too
    magic_files = frozenset(("<timed exec>", "<timed eval>", "<magic-timeit>"))
    # where installed code lives: code run from a file anywhere else (a module a cell wrote into the kernel's
    # folder and imported, or loaded by hand) is the student's, which no static check has read (red team 15)
    here = os.path.realpath(os.getcwd())
    installed = tuple(sorted({r.rstrip("/") + "/" for r in (os.path.realpath(p) for p in (
        sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, stdlib,
        *(p for p in sys.path if p and os.path.isabs(p)))) if not (here + "/").startswith(r.rstrip("/") + "/")}))
    # frames that only pass a load or a call through: the import system, loaders, threads and executors
    loaders = tuple(os.path.join(stdlib, name) for name in (
        "importlib" + os.sep, "runpy.py", "imp.py", "pkgutil.py", "zipimport.py", "threading.py", "functools.py",
        os.path.join("concurrent", "futures") + os.sep))
    passing = tuple(os.path.join(stdlib, name) for name in ("codeop.py", "code.py", "ast.py", "io.py"))
    logging_file = os.path.join(stdlib, "logging", "__init__.py")
    dynamo_compiler = os.path.join("torch", "_dynamo", "convert_frame.py")
    # installed functions that read a frame only for its file name and line, its module's name or one local of
    # typing's, and hand nothing of it on: reached by an answer while a test runs (importing torch._dynamo lazily, a
    # dispatch mode's first call or torch.func does), that read is their bookkeeping, as the standard library's
    # namedtuple, enum and typing's are; the frame they read never reaches the answer
    bookkeeping = frozenset(os.path.join(*path) + ":" + function for path, function in (
        (("typing_extensions.py",), "_caller"), (("typing_extensions.py",), "_has_generic_or_protocol_as_origin"),
        (("torch", "library.py"), "__init__"), (("torch", "library.py"), "_register_fake"),
        (("torch", "_library", "utils.py"), "get_source"),
        # sympy's dispatch decorator looks up the method's name in the class body being defined (dynamo imports
        # sympy: torch.autograd.functional.jacobian(vectorize=True) and torch.func do, red team 24's correct answers)
        (("sympy", "multipledispatch", "core.py"), "_")))
    libraries = tuple(sorted({os.path.realpath(p).rstrip("/") + "/" for p in (
        sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])} | {
        p.rstrip("/") + "/" for p in (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])}))

    def bookkeeping_read(code):
        # whether a frame read by this library code is its own bookkeeping (see `bookkeeping`)
        name, function = name_of(code), plain(code.co_name) or ""
        for prefix in libraries:
            if name.startswith(prefix):
                return name[len_(prefix):] + ":" + function in bookkeeping
        return False

    def owner_of(filename):
        filename = plain(filename)
        return st.files.get(filename) or (st.timed if filename in magic_files else None)

    def graders(code):
        # whether a code object is a grader's cell's (a locked cell, or a test cell's lines)
        return (owner_of(code.co_filename) or ("", ""))[1] == "grader"
    seen = set()

    def remember(event, what, cell, line, key=None):
        # one event for the grader's probe, once per key (by default the event, what, the cell and the line)
        key = key or (event, what, cell, line)
        if key not in seen and len_(st.events) < 200:
            seen.add(key)
            st.events.append((event, what, cell, line, st.cell[0] if st.cell else ""))

    function_type, empty_cell, zip_, read_only = types.FunctionType, ValueError, zip, types.MappingProxyType
    # what code made from text is refused (record): frames and the interpreter's objects, and code objects made
    # or loaded otherwise than by compiling (their file names would be any, the grader's too)
    introspection = frozenset(("sys._getframe", "sys._current_frames", "gc.get_objects", "gc.get_referrers",
                               "gc.get_referents", "code.__new__", "marshal.loads", "marshal.load"))
    frame_attrs = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_code", "gi_code"))
    frame_type = types.FrameType
    class_mro, class_dict = type.__dict__["__mro__"].__get__, type.__dict__["__dict__"].__get__
    # the objects whose frame or code the interpreter's audit events name (the attributes of AUDIT_ATTRS)
    introspected = frozenset((types.FrameType, types.TracebackType, types.GeneratorType, types.CoroutineType,
                              types.AsyncGeneratorType, types.FunctionType))

    def sealed(fn, memo, scope):
        # a function of a grader's cell as a copy no answer can reach: cells of its own (red team 18, hostile: an
        # answer replaced what `_close` calls in the cells of its closure, which the notebook's `_close` shows
        # through `__closure__`), the functions of grader's cells in them copied the same way, its defaults as
        # they are now, and the names it reads looked up in a copy of its cell's namespace
        copy = memo.get(id_(fn))
        if copy is not None:
            return copy
        cells = fn.__closure__ or ()
        fresh = tuple_(cell_type() for _ in cells)
        copy = memo[id_(fn)] = function_type(fn.__code__, scope, fn.__name__, fn.__defaults__, fresh)
        copy.__kwdefaults__ = dict_(fn.__kwdefaults__) if fn.__kwdefaults__ else None
        for old, new in zip_(cells, fresh):
            try:
                value = old.cell_contents
            except empty_cell:
                continue
            if type_(value) is function_type and graders(value.__code__):
                value = sealed(value, memo, scope)
            new.cell_contents = value
        return copy

    # torch's frame-evaluation callback (red team 18, hostile F6): a function set there is handed every Python frame
    # as it starts, the tests' and IPython's included, and can rewrite it (torch.compile's dynamo works that way);
    # an autograd compiler set next to it is handed every backward pass, the references' too. Once torch is loaded,
    # both setters are replaced by gates that ask this hook, which keeps the originals in this closure: a callback
    # or compiler is never set while the notebook is graded (torch.compile'd code runs eagerly, which gives the
    # values it stands for), one that is not torch's own is refused and recorded, and a callback found set when
    # the grader's code starts is taken back and recorded
    frames = {}   # kind: (the module, its setter); "get": get_eval_frame_callback
    gate_source = ("def set_eval_frame(callback, /):\n    box = ['eval_frame', (callback,)]\n"
                   "    _audit('attnlab.frame_gate', box)\n    return box[2]\n\n\n"
                   "def set_autograd_compiler(*args):\n    box = ['autograd', args]\n"
                   "    _audit('attnlab.frame_gate', box)\n    return box[2]\n")
    dynamo_dir = os.sep + os.path.join("torch", "_dynamo") + os.sep

    def gate_functions(source, name):
        # functions that hand their arguments to this hook in an audit event, made from source: their globals hold
        # the builtins and sys.audit only, so nothing of the hook is reachable through them (its closure, the raw
        # functions it keeps); returns their namespace
        scope = {"__builtins__": real_builtins, "_audit": sys.audit}
        exec_(compile_(source, f"<attnlab {name} gate>", "exec", dont_inherit=True), scope)
        return scope

    def lock_frames():
        dynamo = getattr_(sys.modules.get("torch._C"), "_dynamo", None)
        module, autograd = getattr_(dynamo, "eval_frame", None), getattr_(dynamo, "compiled_autograd", None)
        original = getattr_(module, "set_eval_frame", None)
        if original is None or getattr_(module, "get_eval_frame_callback", None) is None:
            return
        scope = gate_functions(gate_source, "frame-callback")
        frames["eval_frame"], frames["get"] = (module, original), module.get_eval_frame_callback
        module.set_eval_frame = scope["set_eval_frame"]
        for name in ("torch._dynamo.eval_frame", "torch._dynamo.decorators"):  # loaded already: their copies too
            for attr in ("set_eval_frame", "_maybe_set_eval_frame"):
                if getattr_(sys.modules.get(name), attr, None) is original:
                    setattr_(sys.modules[name], attr, scope["set_eval_frame"])
        if getattr_(autograd, "set_autograd_compiler", None) is not None:
            frames["autograd"] = (autograd, autograd.set_autograd_compiler)
            autograd.set_autograd_compiler = scope["set_autograd_compiler"]

    def torch_callback(callback):
        # torch.compile's own: an object whose __call__ (or a function whose code) lives in torch/_dynamo as installed
        if callback is True or callback is False:
            return True
        if type_(callback) is function_type:
            code = callback.__code__
        else:
            # the class's own __mro__ and __dict__, not what a metaclass of the answer's says they are
            call = next((class_dict(c)["__call__"] for c in class_mro(type_(callback)) if "__call__" in class_dict(c)),
                        None)
            code = call.__code__ if type_(call) is function_type else None
        return (type_(code) is code_type and dynamo_dir in name_of(code) and is_installed(name_of(code))
                and owner_of(code.co_filename) is None)

    def frame_gate(box):
        kind, args = box[0], box[1]
        original = frames[kind][1]
        if kind == "eval_frame":
            if args[0] is None:
                box.append(original(None))
            elif torch_callback(args[0]):
                box.append(None)      # torch.compile's: nothing is compiled, its function runs as it is written
            else:
                refused_callback("torch.set_eval_frame")
                raise RuntimeError("grading refuses a frame-evaluation callback other than torch.compile's "
                                   "(torch._C._dynamo.eval_frame.set_eval_frame): it would see the tests' frames")
        elif args and args[0] is not None:
            box.append((None, False))  # compiled autograd: the backward passes run as torch's autograd runs them
        else:
            box.append(original(*args))

    def refused_callback(event):
        rec.refused += 1
        frame = getframe(2)
        while frame is not None and (owner_of(frame.f_code.co_filename) or ("", ""))[1] != "student":
            frame = frame.f_back
        cell = owner_of(frame.f_code.co_filename)[0] if frame is not None else (st.cell[0] if st.cell else "?")
        remember(event, "", cell, frame.f_lineno if frame is not None else 0)

    def frames_clear():
        # the grader's code is about to start: no callback may see its frames
        if "get" in frames and frames["get"]() is not None:
            frames["eval_frame"][1](None)
            refused_callback("torch.eval_frame_left")

    # the modules whose functions the grader's code reads as attributes while a test runs (`torch.randn` in an input
    # maker of a setup cell, `math.nextafter` in hidden lines): as the grader's names and its functions' globals they
    # are copies of the module as it was when the grader first trusted a name bound to it, before any student code
    # (found after red team 27: a callback the answer left, run by reference counting when a test dropped its
    # result, replaced torch.add just before the expected value was computed, and the replacement put the original
    # back after one call, so that no check between cells saw it). One level deep: torch.nn.functional and the
    # others named here get copies of their own where the grader binds them by name
    module_type, frozen_modules = types.ModuleType, {}
    frozen_names = frozenset(("torch", "math", "cmath", "operator", "itertools", "functools", "statistics",
                              "torch.nn.functional", "torch.linalg", "torch.special", "torch.fft"))

    def frozen(value):
        if type_(value) is not module_type:
            return value
        name = value.__dict__.get("__name__")
        if type_(name) is not str_ or name not in frozen_names:
            return value
        copy = frozen_modules.get(id_(value))
        if copy is None:
            copy = frozen_modules[id_(value)] = module_type(name)
            copy.__dict__.update(value.__dict__)
        return copy

    def trust(ns, names):
        # the grader's own cell has just run: what it bound is kept as it is now (a dict or list as a copy, so
        # that a later change to the notebook's `_REF` does not reach the tests; its functions sealed)
        if not frames:
            lock_frames()
        memo, scope = {}, None
        for name in names:
            if name in ns:
                value = ns[name]
                if type_(value) is function_type and graders(value.__code__):
                    if scope is None:
                        scope = dict_((key, frozen(v)) for key, v in ns.items())
                        scope["__builtins__"] = real_builtins
                    value = sealed(value, memo, scope)
                # a dict as a read-only copy: the hidden lines' constants hold it, and an answer that reads their
                # code could otherwise put its own functions into it (red team 18, hostile 03)
                trusted[name] = (read_only(dict_(value)) if type_(value) is dict_ else list_(value) if type_(value) is list_
                                 else frozen(value))

    # the hidden lines' names bound as constants (red team 18: an object the hidden lines hand to an answer, a
    # dispatch mode measuring it, has their namespace as its functions' __globals__; an answer that found it
    # there replaced `_close` and `_equal` in it). Each top-level statement is compiled on its own, and every
    # name it reads that the grader's helpers, the locked cells, earlier hidden lines or the builtins bound, and
    # that nothing else rebinds, becomes a constant of its code: what an answer changes in that namespace no
    # longer reaches a check, and what the hidden lines bound leaves the namespace after the statement that bound it
    ast_node, ast_name, ast_load, ast_del, ast_delete, all_ = _ast.AST, _ast.Name, _ast.Load, _ast.Del, _ast.Delete, all
    name_error = NameError
    ast_attribute, ast_constant, ast_module = _ast.Attribute, _ast.Constant, _ast.Module
    scope_nodes = (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.Lambda, _ast.ClassDef, _ast.ListComp,
                   _ast.SetComp, _ast.DictComp, _ast.GeneratorExp)
    named_defs = (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.ClassDef)
    imports, handler, declared = (_ast.Import, _ast.ImportFrom), _ast.ExceptHandler, (_ast.Global, _ast.Nonlocal)
    match_names = tuple_(getattr(_ast, n) for n in ("MatchAs", "MatchStar", "MatchMapping") if hasattr(_ast, n))
    code_type, cell_type, setattr_, slice_ = types.CodeType, types.CellType, setattr, slice
    builtin_values = dict_(real_builtins.__dict__)
    # what the grader's probe works with, as it was before any student code (red team 23: the probe took `vars`, `id`
    # and `dict` from the builtins module, which an answer replaced with ones that showed the module as it had been,
    # and called sys.audit, which an answer can replace, with the gate's secret); folded into the probe's request
    # as the name __attnlab_kernel__ (see evaluated)
    threading_module = sys.modules.get("threading")
    probe_codes, probing = {}, [None]

    def run_source(text, namespace):
        # the probe's source, compiled once (it is the same before every cell; compiling it took a third of the
        # probe's time) and run in the namespace the request made for it. While it runs, its own reads of the
        # functions' __code__ (thousands, each an audit event) are not recorded: no test runs then, and the probe
        # calls no code of the answer's (see `hook`)
        code = probe_codes.get(text) if type_(text) is str_ else None
        if code is None:
            code = compile_(text, "<string>", "exec", dont_inherit=True)
            if type_(text) is str_ and len_(probe_codes) < 4:
                probe_codes[text] = code
        probing[0] = get_ident()
        try:
            exec_(code, namespace)
        finally:
            probing[0] = None

    kernel = types.SimpleNamespace(builtins=types.SimpleNamespace(**builtin_values), audit=sys.audit,
                                   current_frames=sys._current_frames, class_dict=class_dict, class_mro=class_mro,
                                   threading_file=getattr(threading_module, "__file__", None) or "",
                                   get_ident=get_ident, cache={}, run=run_source)
    compiler_names = frozenset(("super", "__class__"))  # a method's `super()` needs the name to get its class cell
    only_ast, len_, range_, enumerate_, getattr_, set_, id_ = 1024, len, range, enumerate, getattr, set, id
    eval_ = eval

    def scan(node, inside, binds, local, loads, fixed, sites):
        # binds: names bound at module level; local: names bound in any function, class or comprehension
        # (never made constants anywhere: a local of that name would be); loads: names read, and in sites where
        # each read is (its parent node, field, index); fixed: global or nonlocal declarations
        here = local if inside else binds
        if isinstance_(node, declared):
            fixed.update(node.names)
            return
        if isinstance_(node, imports):
            for alias in node.names:
                here.add(alias.asname or alias.name.split(".")[0])
            return
        if isinstance_(node, handler) and node.name:
            here.add(node.name)
        if match_names and isinstance_(node, match_names):
            name = getattr_(node, "name", None) or getattr_(node, "rest", None)
            if name:
                here.add(name)
        if isinstance_(node, scope_nodes):
            if isinstance_(node, named_defs):
                here.add(node.name)
            arguments = getattr_(node, "args", None)
            if isinstance_(arguments, _ast.arguments):
                for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                          *((arguments.vararg,) if arguments.vararg else ()),
                          *((arguments.kwarg,) if arguments.kwarg else ())):
                    local.add(a.arg)
            inside = True
            here = local
        for field in type_(node)._fields:
            value = getattr_(node, field, None)
            for i, child in (enumerate_(value) if type_(value) is list_ else ((None, value),)):
                if type_(child) is ast_name:
                    if type_(child.ctx) is ast_load:
                        loads.add(child.id)
                        sites.append((node, field, i, child))
                    elif type_(child.ctx) is not ast_del or inside:
                        here.add(child.id)
                elif isinstance_(child, ast_node):
                    scan(child, inside, binds, local, loads, fixed, sites)

    def constants(sites, folds, holders):
        # every read of a name in `folds` replaced by `<holder>.stop`, one holder (a slice) per name
        keys = {}
        for parent, field, i, node in sites:
            if node.id not in folds:
                continue
            key = keys.get(node.id)
            if key is None:
                key = keys[node.id] = "\x00attnlab constant " + str_(len_(holders))
                holders[key] = slice_(None, folds[node.id])   # immutable, unlike a cell (red team 18, hostile 03)
            where = dict_(lineno=node.lineno, col_offset=node.col_offset, end_lineno=node.end_lineno,
                          end_col_offset=node.end_col_offset)
            replacement = ast_attribute(value=ast_constant(value=key, **where), attr="stop", ctx=ast_load(), **where)
            if i is None:
                setattr_(parent, field, replacement)
            else:
                getattr_(parent, field)[i] = replacement

    def with_holders(code, holders):
        consts, changed = [], False
        for c in code.co_consts:
            if type_(c) is str_ and c in holders:
                c, changed = holders[c], True
            elif type_(c) is code_type:
                inner = with_holders(c, holders)
                c, changed = inner, changed or inner is not c
            consts.append(c)
        return code.replace(co_consts=tuple_(consts)) if changed else code

    def run_hidden(text, filename, ns, bound):
        # runs hidden lines; `bound` receives what they bound, also when one of them fails
        # what the hidden lines read as it is now: the locked cells' names over what earlier hidden lines bound
        known = dict_(hidden_state)
        known.update(trusted)
        private = dict_(ns)
        use_references = trusted.get("_use_references")
        if use_references is not None:
            def rebind(**functions):
                use_references(**functions)  # the answers that call these names find the references
                private.update(functions)     # and so do these lines
            known["_use_references"] = rebind
        tree = compile_(text, filename, "exec", only_ast, dont_inherit=True)
        body = tree.body
        local, fixed, per = set_(), set_(), []
        for stmt in body:
            binds, loads, sites = set_(), set_(), []
            scan(stmt, False, binds, local, loads, fixed, sites)
            per.append((binds, loads, sites))
        first_bound, times = {}, {}
        for k, (binds, _, _) in enumerate_(per):
            for name in binds:
                first_bound.setdefault(name, k)
                times[name] = times.get(name, 0) + 1
        # a name the lines bind once and nothing else binds: a constant in the statements after the one that
        # binds it, and out of the namespace once bound unless an earlier statement (or its own) reads it by name
        once = {n for n, t in times.items() if t == 1 and n not in known and n not in local and n not in fixed}
        kept = {n for n in once if any(n in per[k][1] for k in range_(first_bound[n] + 1))}
        private.update({n: v for n, v in known.items() if n not in once and (n in local or n in fixed or n in times)})
        private["__builtins__"] = real_builtins  # never the notebook's __builtins__, which an answer can replace
        try:
            for k, stmt in enumerate_(body):
                binds, loads, sites = per[k]
                folds = {}
                for n in loads:
                    if n in local or n in fixed or n in binds or n in compiler_names:
                        continue
                    if n in times:
                        if n in once and first_bound[n] < k and n in bound:
                            folds[n] = bound[n]
                    elif n in known:
                        folds[n] = known[n]
                    elif n in builtin_values:
                        folds[n] = builtin_values[n]
                if type_(stmt) is ast_delete and all_(type_(t) is ast_name for t in stmt.targets):
                    # `del _ref_x` of what an earlier statement bound and took out of the namespace already, or
                    # of what an earlier cell's hidden lines bound (red team 18, hostile F7: chapter 1 deletes
                    # such a name, and raising here cost its model answer 5 points): gone from these lines
                    for t in stmt.targets:
                        gone = bound.pop(t.id, bound) if t.id in once else bound
                        if t.id in private:
                            del private[t.id]
                        elif gone is bound and t.id not in known:
                            raise name_error("name '" + t.id + "' is not defined")
                        known.pop(t.id, None)
                    continue
                holders = {}
                constants(sites, folds, holders)
                tree_k = ast_module(body=[stmt], type_ignores=[])
                code = compile_(tree_k, filename, "exec", dont_inherit=True)
                exec_(with_holders(code, holders) if holders else code, private)
                for n in binds:
                    if n in once and n in private:
                        bound[n] = private[n] if n in kept else private.pop(n)
        finally:
            for n, v in private.items():
                bound.setdefault(n, v)

    testing = [False]

    def run_test(ns, segments, token):
        frames_clear()
        arm_writes()
        testing[0] = True
        try:
            run_segments(ns, segments, token)
        finally:
            testing[0] = False
            check_writes()

    def run_segments(ns, segments, token):
        # a test cell, run from its first line by the gate: its visible lines in the notebook's namespace, its
        # hidden lines in a namespace of their own, built from the notebook's with the grader's helpers, the
        # locked cells' names as they were when those cells ran, and what earlier hidden lines defined
        cell = st.cell if st.cell is not None else ("?", "grader")
        for hidden, text, first in segments:
            runs[0] += 1
            filename = "<attnlab " + ("hidden" if hidden else "visible") + " lines of " + str_(cell[0]) + ", " + str_(runs[0]) + ">"
            st.files[filename] = (cell[0], "grader")
            if not hidden:
                exec_(compile_("\n" * (first - 1) + text, filename, "exec", dont_inherit=True), ns)
                continue
            bound = {}
            try:
                run_hidden("\n" * (first - 1) + text, filename, ns, bound)
            finally:
                for name, value in bound.items():
                    if isinstance_(name, str_) and name.startswith(prefixes):
                        hidden_state[name] = value
        # the cell ran to its end: its reply may say so (execute.py takes this back as a user expression; a cell
        # the gate did not run, for want of the secret, has none and is flagged)
        rec.__dict__["done"] = token

    request_codes, staged = {}, {}
    # the frames that compile a cell's code for IPython (CachingCompiler.ast_parse; run_ast_nodes through codeop)
    cell_compilers = (os.path.join("IPython", "core", "compilerop.py"), os.path.join("IPython", "core", "interactiveshell.py"))

    def asked_by_student():
        # whether any frame up the stack is a student cell's: the grader's requests come from its own cells and
        # expressions, never through an answer (red team 23: an answer that had read the secret from the running
        # cell's request, kernel.get_parent(), emptied the hook's record or ran its own lines as the grader's)
        frame = getframe(2)
        while frame is not None:
            owner = owner_of(frame.f_code.co_filename)
            if owner is not None and owner[1] == "student":
                return True
            frame = frame.f_back
        return False

    def refuse_request():
        busy[0] = True
        try:
            refused_callback("attnlab.request")
        finally:
            busy[0] = False

    def evaluated(text, ns):
        # a grader's expression, evaluated in the notebook's namespace with every name it reads that is not its own
        # (a lambda's argument, a comprehension's variable) taken from the builtins as they were when this hook
        # went in: a global the notebook binds (`__import__`, `globals`, `setattr`) is never called in its place
        code = request_codes.get(text)
        if code is None:
            tree = compile_(text, "<attnlab request>", "eval", only_ast, dont_inherit=True)
            binds, local, loads, fixed, sites = set_(), set_(), set_(), set_(), []
            scan(tree, False, binds, local, loads, fixed, sites)
            folds = {n: builtin_values[n] for n in loads if n in builtin_values and n not in local and n not in fixed}
            if "__attnlab_kernel__" in loads:
                folds["__attnlab_kernel__"] = kernel
            holders = {}
            constants(sites, folds, holders)
            code = compile_(tree, "<attnlab request>", "eval", dont_inherit=True)
            code = with_holders(code, holders) if holders else code
            if len_(request_codes) < 64:   # the same requests come before every cell (the probe's differ)
                request_codes[text] = code
        return eval_(code, ns)

    # the answer to a request travels back as the text IPython's display formatter makes of it, which an answer can
    # replace (red team 23: a formatter class that rewrote the probe's answer): it goes as (repr, keyed hash of the
    # request's nonce and the repr), with a key the grader sent before any student code and never sends again, so a
    # rewritten answer does not check out in the grader (execute._answer)
    signing, blake2b, plain_types = [b""], __import__("_blake2").blake2b, (str, type(None), bool, int, float)

    def signed(value, nonce):
        text = repr(value) if type_(value) in plain_types else "None"
        return (text, blake2b((nonce + "\x00" + text).encode(), key=signing[0], digest_size=16).hexdigest())

    # the grader's requests carry no secret (red team 24: the running cell's request, which an answer reads while it
    # runs, held it, and a thread or a finalizer the answer left, which runs with no student frame on its stack,
    # made requests with it): each carries a tag, "nonce:mac", the keyed hash of its kind, nonce and contents with
    # the secret (sent once, before any student code) as key (guard.request_tag). A nonce is good once: a request
    # read while it waits can only be sent again as it is, before the grader's own copy, which then finds it spent
    used_nonces, gate_key, home = set_(), [b""], [None]

    def plain_request(value, depth):
        # contents of the interpreter's own plain types only, whose repr no answer's code makes (a str subclass could
        # show the grader's text in its repr and hold other lines)
        kind = type_(value)
        if kind is tuple_:
            return depth < 4 and all_(plain_request(v, depth + 1) for v in value)
        return kind is str_ or kind is int or kind is bool or value is None

    def authentic(kind, tag, what):
        if gate[0] is None or type_(kind) is not str_ or type_(tag) is not str_ or not plain_request(what, 0):
            return False
        nonce, _, mac = tag.partition(":")
        expected = blake2b((kind + "\x00" + nonce + "\x00" + repr(what)).encode(), key=gate_key[0],
                           digest_size=16).hexdigest()
        if mac != expected:
            return False
        if nonce in used_nonces:
            # the grader's request, already sent by someone else: an answer read it while it waited. None: the
            # caller can tell the grader's copy so (the probe's answer says it)
            busy[0] = True
            try:
                refused_callback("attnlab.replay")
            finally:
                busy[0] = False
            return None
        used_nonces.add(nonce)
        return True

    def request_of(fn):
        # the grader's request that a nameless gate carries, or None: `(lambda box=[(kind, secret, *what)]: box)`
        # whose __code__ is read. Reading it needs no name, so no global of the notebook (a function named
        # `__import__` that received `__import__('sys').audit(...)` with the secret and the hidden lines, red
        # team 23) stands between the grader's code and this hook
        busy[0] = True
        try:
            defaults = fn.__defaults__
        finally:
            busy[0] = False
        if not (type_(defaults) is tuple_ and len_(defaults) == 1 and type_(defaults[0]) is list_
                and len_(defaults[0]) == 1 and type_(defaults[0][0]) is tuple_ and len_(defaults[0][0]) >= 2):
            return None
        request = defaults[0][0]
        if not authentic(request[0], request[1], request[2:]):
            return None
        return request, defaults[0]

    dict_pop = dict.pop
    linecache_module = sys.modules.get("linecache")

    def drop_source(filename):
        # a grader's cell's source out of linecache.cache, where IPython keeps every cell's for tracebacks; with
        # dict.pop, not the cache's own: a replaced cache whose pop did nothing kept the test cell's text, the gate's
        # secret and hidden lines in it, for a later cell to print (red team 23). A cache that is no plain dict is
        # recorded for the cell that runs
        cache = getattr_(linecache_module or sys.modules.get("linecache"), "cache", None)
        if type_(cache) is dict_:
            dict_pop(cache, filename, None)
        elif cache is not None:
            rec.refused += 1
            if len_(st.events) < 200:
                st.events.append(("linecache.cache", "", st.cell[0] if st.cell else "?", 0,
                                  st.cell[0] if st.cell else ""))

    def hook(event, args):
        if (probing[0] is not None and event == "object.__getattr__" and len_(args) == 2 and type_(args[0]) is function_type
                and type_(args[1]) is str_ and args[1] == "__code__" and not testing[0] and get_ident() == probing[0]):
            return   # the probe fingerprinting a function (run_source)
        if (event == "object.__getattr__" and len_(args) == 2 and type_(args[1]) is str_ and args[1] == "__code__"
                and type_(args[0]) is function_type and args[0].__name__ == "<lambda>" and not busy[0]
                and gate[0] is not None):
            found = request_of(args[0])
            if found is not None and asked_by_student():
                refuse_request()
                return
            if found is not None:
                (kind, _, *what), box = found
                ns = home[0]  # the notebook's: a request sent again from elsewhere does what the grader's would
                if testing[0] and kind != "attnlab.done":
                    # no request of the grader's comes while a test cell runs: one that does carries a secret an
                    # answer found
                    rec.refused += 1
                    if len_(st.events) < 200:
                        st.events.append((kind, "", st.cell[0] if st.cell else "?", 0, st.cell[0] if st.cell else ""))
                    return
                if kind in ("attnlab.test", "attnlab.done") and len_(what) == 1:
                    # a ticket: the lines and the token were staged before the cell (stage_expression)
                    segments, token = staged.pop(what[0], (None, None))
                    if token is None or (kind == "attnlab.test") != (segments is not None):
                        raise RuntimeError("the test's lines were not handed over (no staged test under this ticket)")
                    if segments is None:
                        rec.__dict__["done"] = token
                    else:
                        run_test(ns, segments, token)
                elif kind == "attnlab.eval" and len_(what) == 2 and all_(type_(w) is str_ for w in what):
                    # no collection (and so no callback an answer left) while the grader's request runs; after it,
                    # the collector runs again only for a student cell (see the probe event)
                    collecting = gc_isenabled()
                    gc_disable()
                    if collecting and st.cell is not None and st.cell[1] != "student":
                        # turned back on (gc.enable raises no event) while a locked or test cell ran: an answer a
                        # test called, so that the callbacks it left run inside the test's own code
                        remember("gc.enable", "", st.cell[0], 0)
                    try:
                        box.append(signed(evaluated(what[0], ns), what[1]))
                    finally:
                        if collecting and (st.cell is None or st.cell[1] == "student"):
                            gc_enable()
                return
        if event == "attnlab.gate":
            if gate[0] is None and len(args) in (1, 2) and all_(type_(a) is str_ for a in args):
                gate[0] = args[0]
                gate_key[0] = args[0].encode()
                signing[0] = args[1].encode() if len(args) == 2 else b""
                home[0] = getframe(1).f_globals  # the notebook's namespace, where every request of the grader's runs
            return
        granted = False
        if event in ("attnlab.probe", "attnlab.forget", "attnlab.trust", "attnlab.stage") and len_(args):
            # a tag that checks out (a wrong one is ignored, as before); from an answer's code it is refused
            granted = authentic(event, args[0], () if event == "attnlab.probe" else args[1:])
            if granted and asked_by_student():
                refuse_request()
                return
        if event == "attnlab.stage":
            # a test cell's lines and token, handed over in a request before the cell runs, under a ticket its gate
            # names: the cell's own request (which an answer can read while it runs: kernel.get_parent(), the display
            # hook's record of the cell) then holds no hidden line and no token (red team 23, 24)
            if (granted and len_(args) == 4 and type_(args[1]) is str_ and (args[2] is None or type_(args[2]) is tuple_)
                    and type_(args[3]) is str_ and len_(staged) < 64):
                staged[args[1]] = (args[2], args[3])
            return
        if event == "attnlab.probe":
            # the grader's probe: who wrote a code object, what was recorded since its last call (taken), and the
            # cell about to run
            if granted and len(args) == 2 and type_(args[1]) is dict_:
                box = args[1]
                box["student_code"] = student_code
                if box.get("take"):
                    box["events"] = list_(st.events)
                    del st.events[:]
                if box.get("cell") is not None:
                    st.cell = tuple_(box["cell"])
                    # the collector runs while a student cell runs (its callbacks are then that cell's), not while a
                    # locked or test cell does, whose changes would pass for the grader's
                    (gc_enable if st.cell[1] == "student" else gc_disable)()
            elif granted is None and len(args) == 2 and type_(args[1]) is dict_:
                # the grader's own probe, whose tag an answer spent first with a box of its own: its answer says so
                args[1]["events"] = [("attnlab.replay", "", st.cell[0] if st.cell else "?", 0, st.cell[0] if st.cell else "")]
            return
        if event == "attnlab.forget":
            if granted and len(args) == 1 and "linecache" in sys.modules:
                for filename, owner in list_(st.files.items()):
                    if owner[1] != "student":
                        drop_source(filename)
            return
        if event == "attnlab.trust":
            # names a locked cell bound, kept for the hidden tests (only the grader's request has a tag that checks out)
            if granted and len(args) == 2:
                if testing[0]:
                    # the grader trusts a locked cell's names after that cell, never while a test cell runs: a
                    # request then carries a secret an answer found (red team 18, hostile F5) and is refused
                    rec.refused += 1
                    if len_(st.events) < 200:
                        st.events.append(("attnlab.trust", "", st.cell[0] if st.cell else "?", 0,
                                          st.cell[0] if st.cell else ""))
                    return
                trust(home[0], args[1])
            return
        if event == "attnlab.signal_gate":
            if (len_(args) == 1 and type_(args[0]) is list_ and len_(args[0]) == 2 and type_(args[0][0]) is str_
                    and type_(args[0][1]) is tuple_):
                signal_request(args[0])
            return
        if event == "attnlab.gc_gate":
            if (len_(args) == 1 and type_(args[0]) is list_ and len_(args[0]) == 2 and type_(args[0][0]) is str_
                    and type_(args[0][1]) is tuple_):
                gc_request(args[0])
            return
        if event == "attnlab.torch_gate_install":
            install_torch_gate()   # once; FUNCTORCH_PRELOAD asks, before any student cell
            return
        if event == "attnlab.torch_gate":
            if (torch_gate[0] is not None and len_(args) == 1 and type_(args[0]) is list_ and len_(args[0]) == 3
                    and type_(args[0][0]) is str_ and args[0][0] in ("library", "dispatcher")
                    and type_(args[0][1]) is tuple_ and type_(args[0][2]) is dict_):
                torch_gate_request(args[0])
            return
        if event == "attnlab.mode_gate":
            if (len_(args) == 1 and type_(args[0]) is list_ and len_(args[0]) == 2 and type_(args[0][0]) is str_
                    and args[0][0] in mode_raw and type_(args[0][1]) is tuple_):
                mode_request(args[0])
            return
        if event == "attnlab.frame_gate":
            if (len(args) == 1 and type_(args[0]) is list_ and len_(args[0]) == 2 and type_(args[0][0]) is str_
                    and args[0][0] in frames
                    and type_(args[0][1]) is tuple_ and (args[0][0] != "eval_frame" or len_(args[0][1]) == 1)):
                busy[0] = True
                try:
                    frame_gate(args[0])
                finally:
                    busy[0] = False
            return
        if event == "compile":      # a cell's code: remember which cell its file belongs to
            if st.cell is not None and len(args) > 1:
                name = plain(args[1])
                if name is not None and type_(args[1]) is str_ and "ipykernel_" in name:
                    # a cell's file: IPython compiles the cell being run under it, and libraries (a traceback's
                    # source reader) compile it again. Asked for by a student's frame (past code.py and codeop.py,
                    # which only pass a compile on), its frames would pass for that cell's, the grader's when it is a
                    # test or locked cell (red team 23): flagged. Filed under the running cell outside tests only
                    asker = requester(getframe(1))[0]
                    owner = owner_of(asker.f_code.co_filename) if asker is not None else None
                    if owner is not None and owner[1] == "student" and not busy[0]:
                        busy[0] = True
                        try:
                            refused_callback("compile.cell_name")
                        finally:
                            busy[0] = False
                    elif not testing[0] and asker is not None and (
                            name_of(asker.f_code).endswith(cell_compilers) or not is_installed(name_of(asker.f_code))):
                        # IPython compiling the cell it runs; a traceback's source reader compiling a file again
                        # files nothing (it would file the hook's own cell under the cell whose error it shows)
                        st.files.setdefault(name, st.cell)
                elif args[1] is None and st.cell[1] == "student":
                    st.timed = st.cell
                elif name is not None and not busy[0]:
                    busy[0] = True
                    try:
                        forged(name)
                    finally:
                        busy[0] = False
            return
        if event == "open" and args and st.cell is not None and not busy[0] and plain(args[0]) is not None:
            name = plain(args[0])
            mode = args[1] if len(args) > 1 else None
            if name.endswith((".py", ".pyc", ".pyo", ".so")) and "ipykernel_" not in name and (
                    # not a cell's file, which linecache reads for tracebacks; open()'s mode read as an exact str
                    # (os.open's flags, an int, were never a read here)
                    mode is None or "r" in (plain(mode) or "")):
                busy[0] = True
                try:
                    outside(name)  # a module file read by a loader called by hand
                finally:
                    busy[0] = False
        if event == "exec" and args and type_(args[0]) is code_type and frames and not busy[0] and (
                graders(args[0])):
            busy[0] = True
            try:
                frames_clear()   # a grader's cell or a test's lines: no frame callback sees them
            finally:
                busy[0] = False
        if event == "exec" and args and type_(args[0]) is code_type:
            # a grader cell starts: its source leaves linecache, where IPython put it for tracebacks, so that an
            # answer the test calls cannot read the test's lines there (red team 9)
            filename = name_of(args[0])
            owner = st.files.get(filename)
            if owner is not None and owner[1] != "student" and "linecache" in sys.modules:
                drop_source(filename)
            if owner is None and st.cell is not None and not busy[0]:
                busy[0] = True
                try:
                    outside(filename)
                finally:
                    busy[0] = False
        if event in watched and not busy[0] and not (
                event in ("object.__getattr__", "object.__setattr__") and (len(args) < 2 or args[1] not in attrs)) and not (
                # a frame's code matters only while hidden lines run (their frames are the ones to keep out of
                # reach); read everywhere else (IPython, tracebacks, torch), it would cost every read a record
                event == "object.__getattr__" and args[1] == "f_code" and not testing[0]):
            busy[0] = True
            try:
                record(event, args)
            finally:
                busy[0] = False
        if event == "sys.addaudithook":
            rec.refused += 1
            raise RuntimeError("grading refuses new audit hooks")

    def requester(frame):
        # the first frame up the stack that asked for a load or a compile, past the pass-through ones, and
        # whether the import system was on the way
        via_import = False
        while frame is not None and (name_of(frame.f_code).startswith(("<frozen ", *loaders, *passing)) or
                                     name_of(frame.f_code) in wrappers):
            via_import = via_import or name_of(frame.f_code).startswith("<frozen importlib")
            frame = frame.f_back
        return frame, via_import

    def forged(filename):
        # code compiled on behalf of the student under a file name that is no cell's (an installed module's,
        # say: its frames would then pass for library code, red team 15); the import system's own compiles are
        # the finder's to check, and a library's (torch.compile's, Triton's) are its own
        if filename.startswith(("<attnlab ", "<frozen ")) and own_compiler[0] != get_ident():
            # the grader's names are the hook's to give (its requests', hidden lines' and gates' code), and no code
            # is compiled at run time under a frozen module's name: both pass for code that may read frames
            remember("compile.grader_name", filename, st.cell[0] if st.cell else "?", 0)
            raise RuntimeError("grading refuses code named like the grader's or a frozen module's")
        if owner_of(filename) is not None or filename in magic_files:
            return
        frame, via_import = requester(getframe(2))
        if via_import:
            return
        if filename.startswith("<"):
            # text made code under a name no file has ("<string>" for exec, eval and compile of a str): namedtuple,
            # dataclasses and torch do that for themselves, and their code passes on what it does to their caller;
            # asked for by a student's frame, it is code no cell holds, which the walk in record() would pass over
            # like theirs (red team 23: a frame reader made by exec of a string and handed to the test as the
            # answer's function read the hidden lines' frame unrecorded)
            owner = owner_of(frame.f_code.co_filename) if frame is not None else None
            if owner is not None and owner[1] == "student":
                remember("compile.text", filename, owner[0], frame.f_lineno)
            elif frame is None and st.cell is not None:
                # asked for by nobody's code: a thread whose target is exec or compile of a text (only the thread's
                # own pass-through frames below it), which has no frame of a student cell (red team 24)
                remember("compile.text", filename, st.cell[0], 0)
            return
        student_file("compile", filename, frame)

    def outside(filename):
        # code from a file that is neither a cell nor installed starts: recorded for the cell that loads it,
        # unless an installed library loads it (torch.compile's and Triton's generated modules)
        if filename.startswith("<") or (filename.startswith("/") and "ipykernel_" not in filename and
                                        is_installed(filename)):
            return
        student_file("exec", filename, requester(getframe(2))[0])

    def student_file(event, filename, frame):
        # `frame` (None at the bottom of a thread) asked for the file's code: unless it is a library's own or a
        # grader cell's, the file is the student's, recorded for the cell that asked, and what its code does
        # later is recorded too
        owner = owner_of(frame.f_code.co_filename) if frame is not None else None
        if (frame is not None and owner is None and is_installed(name_of(frame.f_code))) or (
                owner is not None and owner[1] != "student"):
            return
        cell = owner[0] if owner else (st.cell[0] if st.cell else "")
        st.files[filename] = (cell, "student")
        remember(event, filename, cell, frame.f_lineno if owner else 0, key=(event, filename, cell))

    def resolved(path):
        # os.path.realpath's answer (symbolic links followed, `..` taken after them; what does not exist is kept as
        # it is written), from os.lstat and os.readlink as they were when this hook went in: os.path.realpath looks
        # its helpers up in modules an answer can patch (red team 23: with posixpath.realpath patched, a module the
        # answer wrote passed for an installed one, and its frame reads went unrecorded)
        if not path.startswith("/"):
            path = getcwd() + "/" + path
        head, _, tail = path.rpartition("/")
        if head.startswith(installed) and tail not in ("", ".", "..") and "/./" not in head + "/" and (
                "/../" not in head + "/") and "//" not in head:
            # a folder below an installed one resolves the same way all the kernel's life (see known_paths): its
            # answer is kept, and a file there costs one lstat, not one per folder of its path
            base = known_dirs.get(head)
            if base is None:
                base = known_dirs[head] = resolved(head)
            return walk([part for part in base.split("/") if part], [tail])
        return walk([], path.split("/")[::-1])

    known_dirs = {}

    def walk(done, todo):
        # `done`: the parts of a resolved path; `todo`: the parts still to follow, the next one last
        links = 0
        while todo:
            part = todo.pop()
            if part == "" or part == ".":
                continue
            if part == "..":
                if done:
                    done.pop()
                continue
            candidate = "/" + "/".join(done + [part])
            try:
                is_link = links < 40 and s_islnk(lstat(candidate).st_mode)
            except (os_error, value_error):
                is_link = False
            if not is_link:
                done.append(part)
                continue
            links += 1
            target = plain(readlink(candidate)) or ""
            if target.startswith("/"):
                done = []
            todo.extend(target.split("/")[::-1])
        return "/" + "/".join(done)

    # an installed folder and what is below it are read-only to the kernel (bubblewrap mounts them so, Landlock
    # allows no write there): a path written below one without `.` or `..` resolves the same way all the kernel's
    # life, so its answer is kept (imports ask about the same files again and again)
    known_paths = {}

    def is_installed(filename):
        filename = plain(filename)
        if filename is None:
            return False
        answer = known_paths.get(filename)
        if answer is None:
            answer = resolved(filename).startswith(installed)
            if filename.startswith(installed) and "/./" not in filename and "/../" not in filename and (
                    not filename.endswith(("/.", "/.."))) and "//" not in filename:
                known_paths[filename] = answer
        return answer

    def student_code(code):
        # whether a code object is the student's: a student cell's, or from a file neither a cell nor installed
        filename = name_of(code)
        owner = owner_of(filename)
        if owner is not None:
            return owner[1] == "student"
        return not filename.startswith("<") and not is_installed(filename)

    def record(event, args):
        # runs busy (what it sets off is not recorded), so it calls no code an answer wrote: an event can be raised
        # by hand (sys.audit) with any objects, whose attributes, __str__ or __hash__ would run here unrecorded; only
        # objects of the interpreter's own types are read, file names as exact strs
        frame = getframe(2)
        if (event in introspection or (event == "object.__getattr__" and len_(args) > 1 and type_(args[1]) is str_
                                       and args[1] in frame_attrs)) and not (
                probing[0] is not None and get_ident() == probing[0]):
            # frames or the interpreter's objects asked for by code made from text that no cell holds and the hook
            # did not make (past the wrappers that only pass a request on): exec of a string run by a collector's
            # callback or a thread has no frame of a student cell on its stack, and read the hook's own frame, its
            # secrets and staged tests (red team 24, hostile). Refused, at any time, and recorded for the running cell
            asker = frame
            while asker is not None and name_of(asker.f_code) in wrappers:
                asker = asker.f_back
            name = name_of(asker.f_code) if asker is not None else ""
            if (name.startswith("<") and not name.startswith(("<frozen ", "<attnlab ")) and name != own_file
                    and owner_of(asker.f_code.co_filename) is None):
                remember("introspection.text", event, st.cell[0] if st.cell else "?", 0)
                raise RuntimeError("grading refuses frames and the interpreter's objects to code made from text")
        if event.startswith("marshal."):
            # the import system loads every compiled module with marshal: only a student cell's own call counts
            owner = owner_of(frame.f_code.co_filename)
            if owner is None or owner[1] != "student":
                return
        elif event == "pickle.find_class":
            module, name = (plain(a) or "" for a in (*args[:2], "", "")[:2])
            if (module.split(".")[0] in pickle_modules and not (module == "__main__" and name.startswith("_"))) or (
                    module == "builtins" and name in pickle_builtins):
                return  # the student's own classes, not the tests' underscore helpers
            # torch.load and copy helpers unpickle for their caller: any student cell up the stack is the owner
            while frame is not None and (owner_of(frame.f_code.co_filename) or (None, None))[1] != "student":
                frame = frame.f_back
            if frame is None:
                return
        elif (event == "object.__getattr__" and len(args) > 1 and args[1] == "__code__" and frame is not None
              and name_of(frame.f_code) in wrappers):
            # `inspect.signature` of a library's function or the student's own reads its code and nothing of the
            # tests (red team 16: an honest `inspect.signature(torch.einsum)` was flagged); a grader cell's
            # function read that way is still recorded
            code = args[0].__code__ if type_(args[0]) is function_type else None
            if type_(code) is code_type and (student_code(code) or is_installed(name_of(code))):
                return
        # the grader's code or frames reached by installed code on an answer's behalf are the answer's reach (red
        # team 18, hostile 03 and 04: torch._dynamo.pgo._get_closure_content(f) returns f.__code__, whose constants
        # hold what the hidden lines call; torch.fx's _find_user_code_frame() returns its caller's frame, whose
        # f_back, which no event reports, is the hidden test's): the code of a grader's function or frame read,
        # a grader's frame taken from a traceback or generator, or any frame taken by a library (not the standard
        # library's own bookkeeping: namedtuple, enum, typing) while a grader's frame is up the stack. Then the
        # libraries' frames pass the request on like the wrappers'. torch.compile's own reading of what it compiles
        # (convert_frame up the stack) is not the answer's
        grader_code = False
        if frame is not None and (event == "sys._getframe" or (
                event == "object.__getattr__" and len(args) > 1 and type_(args[1]) is str_ and args[1] in attrs)):
            if event == "sys._getframe":
                by = frame
                while testing[0] and by is not None and name_of(by.f_code) in wrappers:
                    by = by.f_back
                if (testing[0] and by is not None and name_of(by.f_code).startswith(libraries) and args
                        and not bookkeeping_read(by.f_code)):
                    up = args[0] if type_(args[0]) is frame_type else None
                    while up is not None and not grader_code:
                        grader_code = graders(up.f_code)
                        up = up.f_back
            else:
                target = getattr_(args[0], args[1], None) if type_(args[0]) in introspected else None
                code = target if type_(target) is code_type else target.f_code if type_(target) is frame_type else None
                grader_code = type_(code) is code_type and graders(code)
            if grader_code:
                up = frame
                while up is not None:
                    if name_of(up.f_code).endswith(dynamo_compiler):
                        return
                    up = up.f_back
        reader = name_of(frame.f_code) if frame is not None else ""
        if (testing[0] and (event == "sys._getframe" or event == "sys._current_frames" or (
                event == "object.__getattr__" and len(args) > 1 and type_(args[1]) is str_ and args[1] in attrs))
                and reader.startswith("<") and not reader.startswith("<frozen ")
                and owner_of(frame.f_code.co_filename) is None):
            # code made from text under a name no cell or file has, reading frames while a test runs: the walk
            # below would pass over it to the test's own frames (red team 23: a frame reader that timeit compiled
            # from the answer's text, as "<timeit-src>", read the hidden lines' values unrecorded). Recorded for
            # the running cell
            cell = st.cell[0] if st.cell else "?"
            remember(event, (plain(args[1]) or "") if event.startswith("object.") else "", cell, 0)
            return
        if not event.startswith(("marshal.", "pickle.")):
            while frame is not None and (name_of(frame.f_code) in wrappers or (
                    grader_code and is_installed(name_of(frame.f_code))) or (
                    name_of(frame.f_code).startswith("<") and owner_of(frame.f_code.co_filename) is None) or (
                    # logging.currentframe() hands its caller's frame back: the student's, when a student cell
                    # calls it (red team 16: a test's frames read that way went unrecorded); logging's own use of
                    # it (finding the caller of logging.info) stays logging's
                    event == "sys._getframe" and name_of(frame.f_code) == logging_file
                    and frame.f_code.co_name in ("<lambda>", "currentframe"))):
                frame = frame.f_back
        if frame is None:
            return
        owner = owner_of(frame.f_code.co_filename)
        if owner is None or owner[1] != "student":
            return
        what = (plain(args[1]) or "") if event.startswith("object.") and len(args) > 1 else (
            (plain(args[0]) or "") + "." + (plain(args[1]) or "")) if event == "pickle.find_class" and len(args) > 1 else ""
        remember(event, what, owner[0], frame.f_lineno)

    # signal handlers (red team 23): Python hands a handler the frame that was running when the signal came, and
    # neither that nor f_back and f_locals raises an audit event; an answer that set a handler, sent itself the
    # signal and put the old handler back read the hidden lines' values and the hook's own state. The setter is
    # replaced by a gate that asks this hook (made from source, so that nothing of the hook is in its closure or
    # globals: a gate defined here would hand its closure, the raw setter and the hook's record with it, to an
    # answer that reads `__closure__`, which no audit event reports). Set: the default and ignore settings (exact
    # ints), the interpreter's int handler, and a handler that was in place before any student code; anything else
    # (an answer's function, an int subclass with __call__, a library's object that passes the frame on, a bound
    # builtin that would keep it) is refused and recorded. A second instance of the signal module, made from its
    # spec, would bring the raw setter back: refused the same way
    import _imp, _signal, signal as signal_module
    from importlib.machinery import ModuleSpec as module_spec
    raw_setter, raw_create = _signal.signal, _imp.create_builtin
    default_int_handler = _signal.default_int_handler
    known_handlers = {id_(h): h for h in (_signal.getsignal(n) for n in signal_module.valid_signals())
                      if h is not None}

    def signal_request(box):
        kind, what = box[0], box[1]
        if kind == "signal" and len_(what) == 2:
            handler = what[1]
            if not (type_(handler) is int or handler is default_int_handler or known_handlers.get(id_(handler)) is handler):
                refused_callback("signal.signal")
                raise RuntimeError("grading refuses a signal handler set by an answer (signal.signal): it would be "
                                   "handed the frame that was running, a test's among them")
            box.append(raw_setter(*what))
        elif kind == "create" and len_(what) == 1:
            spec = what[0]
            if (type_(spec) is not module_spec or "name" in class_dict(module_spec)
                    or plain(spec.__dict__.get("name")) in ("_signal", "_imp", "gc")):
                refused_callback("signal.module")
                raise ImportError("grading refuses a second instance of a module it guards (_signal, _imp, gc)")
            box.append(raw_create(spec))

    signal_gates = gate_functions("def signal(signalnum, handler, /):\n    box = ['signal', (signalnum, handler)]\n"
                                  "    _audit('attnlab.signal_gate', box)\n    return box[2]\n\n\n"
                                  "def create_builtin(spec, /):\n    box = ['create', (spec,)]\n"
                                  "    _audit('attnlab.signal_gate', box)\n    return box[2]\n", "signal")
    _signal.signal = signal_gates["signal"]
    _imp.create_builtin = signal_gates["create_builtin"]
    wrapper = signal_module.__dict__.get("signal")
    if type_(wrapper) is function_type and "__wrapped__" in wrapper.__dict__:
        del wrapper.__dict__["__wrapped__"]   # functools.wraps kept the raw setter there

    # the collector inside a test (red team 27, hostile: an answer a test called turned it on, its callback ran in
    # the hidden lines after the answer had returned, and turned it off again before the grader looked): while a
    # locked or test cell runs, gc.enable leaves it off and is recorded, and gc.collect collects nothing (a no-op
    # for an honest answer, whose results do not depend on when memory comes back)
    gc_collect = gc_module.collect

    def gc_request(box):
        kind, what = box[0], box[1]
        graders = testing[0] or busy[0] or (st.cell is not None and st.cell[1] != "student")
        if kind == "enable" and len_(what) == 0:
            if graders:
                remember("gc.enable", "", st.cell[0] if st.cell else "?", 0)
                box.append(None)
            else:
                box.append(gc_enable())
        elif kind == "collect" and len_(what) == 1:
            box.append(0 if graders else gc_collect(*what))

    gc_gates = gate_functions("def enable():\n    box = ['enable', ()]\n    _audit('attnlab.gc_gate', box)\n    return box[2]\n\n\n"
                              "def collect(generation=2):\n    box = ['collect', (generation,)]\n"
                              "    _audit('attnlab.gc_gate', box)\n    return box[2]\n", "gc")
    gc_module.enable, gc_module.collect = gc_gates["enable"], gc_gates["collect"]

    # kernels registered for torch's own operators (red team 27, hostile: a Python kernel for aten::count_nonzero,
    # which the helpers' _close counts with, or for aten::equal alive only while the answer's results were, kept
    # the points of wrong answers and read the expected values; no check between cells could see the second).
    # Every Python registration (torch.library.Library under any name, torch.library.impl, custom_op) asks torch's
    # C++ extension for a library through torch._C._dispatch_library, and the libraries torch made before any
    # student code only take kernels of their own namespace and dispatch key. Once torch is loaded (FUNCTORCH_PRELOAD
    # asks, before any student cell of a torch notebook, once vmap's own kernels are in) that function is a gate
    # made from source, as the signal setter is: a library for aten's operators (every operator the tests and
    # their helpers run) or for fallbacks ("_") is refused and recorded, whoever asks; one of another namespace
    # (an answer's own, the prims and others torch.compile extends) is made as before
    torch_gate, refused_spaces = [None], frozenset(("aten", "_"))     # the raw function, once installed

    def install_torch_gate():
        torch_c = sys.modules.get("torch._C")
        if torch_gate[0] is not None or torch_c is None:
            return
        raw_library = torch_c.__dict__.get("_dispatch_library")
        if raw_library is None or type_(raw_library) is function_type:
            return
        torch_gate[0] = raw_library
        torch_c._dispatch_library = gate_functions(
            "def _dispatch_library(*args, **kwargs):\n    box = ['library', args, kwargs]\n"
            "    _audit('attnlab.torch_gate', box)\n    return box[3]\n", "torch")["_dispatch_library"]
        install_torch_state_gates(torch_c)

    def torch_gate_request(box):
        args, kwargs = box[1], box[2]
        if box[0] == "dispatcher":
            refused_callback("torch.python_dispatcher")
            raise RuntimeError("grading refuses torch's Python dispatcher (torch._C._EnablePythonDispatcher): it runs "
                               "Python kernels of torch's operators, which would change what the tests compute")
        ns = args[1] if len_(args) > 1 else kwargs.get("ns")
        if type_(ns) is not str_ or ns in refused_spaces:
            refused_callback("torch.library")
            raise RuntimeError(f"grading refuses kernels registered for torch's own operators (a library in the "
                               f"namespace {ns!r}, torch.library): they would change what the tests compute")
        box.append(torch_gate[0](*args, **kwargs))

    # state an answer changes only while a test computes its expected values (red team 28, found by the lead): an
    # answer the test calls leaves something in place that the test's own lines then go through, and that puts
    # itself back before anything checks: a method of torch.Tensor replaced by one that deletes itself after its
    # first call; a name of a torch module that torch's own Python code reads as it runs (torch.layer_norm, read by
    # F.layer_norm at each call), replaced the same way; a dispatch mode pushed by a callback the answer left on its
    # result (run when the test drops that result) and popped by another; torch's Python dispatcher, which runs a
    # kernel registered with py_impl, turned on and off the same way. Each was gone before the comparison and before
    # any check between cells, and the wrong answer kept its point. Closed once torch is loaded, four ways:
    # 1. torch.Tensor and torch.nn.Parameter become immutable types, as torch._C.TensorBase is: their methods and
    #    operators (what every test's lines run) can no longer be set or deleted
    # 2. torch's Python dispatcher (the only thing that runs Python kernels of torch's operators) is refused
    # 3. while a test cell runs, a dispatch or function mode goes onto a stack only when it is a test's own (its
    #    handler a function of a grader's cell) or an answer's `with torch.device(...)` block
    # 4. while a test cell runs, the dicts of torch's loaded modules and classes, of math and of builtins are
    #    watched by their version tags (PEP 509: CPython 3.11 gives every dict one, which any write moves on): one
    #    written and put back as it was within the cell is recorded (the grader's lines write none of them)
    class_flags = type.__dict__["__flags__"].__get__
    module_dict = types.ModuleType.__dict__["__dict__"].__get__
    memory = {"flags_at": None, "tags": False}

    def immutable(cls):
        # Py_TPFLAGS_IMMUTABLETYPE set on a type's tp_flags, found at its offset only when that word holds the flags
        offset = memory["flags_at"]
        if offset is None or not isinstance_(cls, type_):
            return False
        word = word_at(id_(cls) + offset)
        if word.value != class_flags(cls):
            return False
        word.value = word.value | 256
        return class_flags(cls) & 256 != 0

    def find_offsets():
        # tp_flags of a fresh class of this hook's own, found where CPython 3.11 keeps it on a 64-bit build, and a
        # dict's version tag, checked to move on each write: neither is used where its check fails (another Python
        # or build grades without 1, 4 and the fixed methods below; the grader's own tests run on 3.11)
        probe_class = type_("attnlab_probe", (), {})
        if word_at(id_(probe_class) + 168).value == class_flags(probe_class):
            memory["flags_at"] = 168
            immutable(probe_class)
            try:
                probe_class.x = 1
                memory["flags_at"] = None
            except TypeError:
                pass
        probe = {}
        tag = word_at(id_(probe) + 24)
        before = tag.value
        probe["x"] = 1
        middle = tag.value
        probe["x"] = 2
        memory["tags"] = before != middle and middle != tag.value and sys.version_info[:2] == (3, 11)

    # a method of torch.Tensor shadowed on one tensor: `x.exp = fake` (or `x.__dict__["exp"] = fake`, or
    # object.__setattr__) on a tensor the test handed to the answer, and the test's reference then calls x.exp().
    # Each method of torch.Tensor (not its dunders: operators are looked up on the type, never on the tensor) is
    # held in torch.Tensor's own dict by a data descriptor, which Python finds before a tensor's own attributes:
    # reading it gives the method as before (bound to the tensor, or itself on the class), setting or deleting it
    # on a tensor raises. The descriptor is a tuple (the method and its __get__), so nothing in it can be replaced
    fixed_source = ("class fixed(tuple):\n    __slots__ = ()\n\n"
                    "    def __get__(self, obj, cls):\n        return self[1](obj, cls)\n\n"
                    "    def __set__(self, obj, value):\n        raise AttributeError('a method of torch.Tensor cannot be "
                    "replaced on a tensor (grading keeps every tensor method as torch defines it)')\n\n"
                    "    def __delete__(self, obj):\n        raise AttributeError('a method of torch.Tensor cannot be "
                    "deleted from a tensor (grading keeps every tensor method as torch defines it)')\n")

    def fix_methods(tensor):
        fixed = gate_functions(fixed_source, "tensor-method")["fixed"]
        if not immutable(fixed):
            return
        seen = set_()
        for cls in class_mro(tensor):
            if cls is object:
                break
            for name, raw in list_(class_dict(cls).items()):
                if type_(name) is not str_ or name in seen or (name[:2] == "__" and name[-2:] == "__"):
                    continue
                seen.add(name)
                kind = type_(raw)
                getter = getattr_(kind, "__get__", None)
                if getter is None or getattr_(kind, "__set__", None) is not None or getattr_(kind, "__delete__", None) is not None:
                    continue   # a data descriptor already (a property, a tensor's own field): found before the tensor
                setattr_(tensor, name, fixed((raw, raw.__get__)))

    mode_raw, mode_kinds = {}, ("_push_on_torch_function_stack", "_push_on_torch_dispatch_stack", "_set_dispatch_mode")
    mode_names = {}   # what the mode gate needs of torch: DeviceContext and torch's own folder

    def install_torch_state_gates(torch_c):
        was, busy[0] = busy[0], True
        try:
            find_offsets()
            torch = sys.modules.get("torch")
            tensor = getattr_(torch, "Tensor", None)
            if tensor is not None:
                fix_methods(tensor)
            for cls in (tensor, getattr_(getattr_(getattr_(torch, "nn", None), "parameter", None), "Parameter", None)):
                if cls is not None:
                    immutable(cls)
            dispatcher = torch_c.__dict__.get("_EnablePythonDispatcher")
            if dispatcher is not None:
                setattr_(dispatcher, "__init__", gate_functions(
                    "def __init__(self, *args, **kwargs):\n    box = ['dispatcher', args, kwargs]\n"
                    "    _audit('attnlab.torch_gate', box)\n", "dispatcher")["__init__"])
                immutable(dispatcher)
            mode_names["torch_dir"] = os.path.dirname(plain(torch.__file__)) + os.sep
            device = sys.modules.get("torch.utils._device")
            mode_names["device"] = getattr_(device, "DeviceContext", None)
            source = "".join(f"def {name}(*args):\n    box = [{name!r}, args]\n    _audit('attnlab.mode_gate', box)\n"
                             f"    return box[2]\n\n\n" for name in mode_kinds)
            gates = gate_functions(source, "mode")
            for name in mode_kinds:
                raw = torch_c.__dict__.get(name)
                if raw is not None and type_(raw) is not function_type:
                    mode_raw[name] = raw
            # every module loaded now that holds one of them under any name (torch.overrides and
            # torch.utils._python_dispatch import them by name) gets the gate; a module loaded later imports the gate
            raws = {id_(raw): name for name, raw in mode_raw.items()}
            for module in list_(sys.modules.values()):
                try:
                    space = module_dict(module)
                except Exception:
                    continue
                for key, value in list_(space.items()):
                    name = raws.get(id_(value))
                    if name is not None and value is mode_raw[name]:
                        space[key] = gates[name]
        finally:
            busy[0] = was

    def grader_mode(mode):
        # whether a mode's handler is a function of a grader's cell (a test's watch), as its class finds it; torch's
        # own wrapper that keeps torch.compile out of a handler (_disable_dynamo) counts as the function it wraps
        torch_dir = mode_names.get("torch_dir") or "\0"
        for cls in class_mro(type_(mode)):
            space = class_dict(cls)
            handler = space.get("__torch_function__", space.get("__torch_dispatch__"))
            if handler is None:
                continue
            if type_(handler) is staticmethod or type_(handler) is classmethod:
                handler = handler.__func__
            for _ in range_(3):
                if type_(handler) is not function_type:
                    return False
                code = handler.__code__
                if not name_of(code).startswith(torch_dir):
                    break
                inner = [c.cell_contents for c in handler.__closure__ or () if type_(c.cell_contents) is function_type]
                if len_(inner) != 1:
                    return False
                handler = inner[0]
            owner = owner_of(handler.__code__.co_filename)
            return owner is not None and owner[1] == "grader"
        return False

    def mode_request(box):
        # while a test cell runs, a mode goes onto a stack only when its handler is the grader's (a test's watch) or
        # it is an answer's `with torch.device(...)` block, whoever asks: a callback an answer left may be a C
        # function (functools.partial), which runs in the frame of whatever code dropped the object, the test's
        # own. Taking a mode off is not gated: torch does it for a watch while it runs the watch's handler (an
        # operator of torch.Tensor written in Python, in an answer the watch sees), and a stack with a mode taken
        # off is what the helpers' own check before each comparison requires anyway
        name, args = box[0], box[1]
        raw = mode_raw[name]
        if testing[0] and name in ("_push_on_torch_function_stack", "_push_on_torch_dispatch_stack", "_set_dispatch_mode"):
            was, busy[0] = busy[0], True
            try:
                device = mode_names.get("device")
                allowed = len_(args) == 1 and ((device is not None and type_(args[0]) is device) or grader_mode(args[0]))
            finally:
                busy[0] = was
            if not allowed:
                refused_callback("torch.mode")
                raise RuntimeError("grading refuses a torch dispatch or function mode that is not the test's own, pushed "
                                   "while a test runs (" + name + "): it would see and change what the test's own lines "
                                   "compute")
        box.append(raw(*args))

    # the version-tag watch (4.): [label, the object that keeps the dict alive, its tag, the tag when last read, a
    # copy of the dict then (compared by `contents`: exact str keys, the identity of each value; other keys counted,
    # so that no key's __eq__ runs), the dict or the class's mapping proxy]
    watched_dicts, watched_ids = [], set_()

    def contents(mapping):
        held, odd = {}, 0
        for key, value in mapping.items():
            if type_(key) is str_:
                held[key] = id_(value)
            else:
                odd += 1
        return held, odd

    def watch(label, holder, mapping, address):
        if address in watched_ids:
            return
        watched_ids.add(address)
        tag = word_at(address + 24)
        watched_dicts.append([label, holder, tag, tag.value, dict_(mapping), mapping])

    # torch's modules that rewrite a global of their own and put it back as they work (a dispatch mode's enter and
    # exit, a `with torch.device(...)` block, a checkpoint's or a parametrization's caching context), and the
    # compiler's and tracer's, which no eager computation of a test reads: not watched
    unwatched = ("torch.utils._python_dispatch", "torch.utils._device", "torch.utils.checkpoint",
                 "torch.nn.utils.parametrize", "torch.backends", "torch._dynamo", "torch._inductor", "torch.fx", "torch.testing._internal",
                 "torch.distributed", "torch.onnx", "torch.export", "torch._export")
    unwatched_below = tuple_(prefix + "." for prefix in unwatched)

    def watch_new_dicts():
        for name, module in list_(sys.modules.items()):
            if type_(name) is not str_ or not (name == "torch" or name.startswith("torch.") or name in ("math", "builtins")):
                continue
            if name in unwatched or name.startswith(unwatched_below):
                continue
            try:
                space = module_dict(module)
            except Exception:
                continue
            if id_(space) in watched_ids:
                continue
            watch("module " + name, module, space, id_(space))
            for value in list_(space.values()):
                if type_(value) is not type_ or class_flags(value) & 256:
                    continue   # a class (not of a metaclass of an answer's), not immutable already
                proxy = class_dict(value)
                if proxy.get("__module__") != name:
                    continue
                # the class's own dict, behind the read-only proxy type.__dict__ gives: its address is the proxy's
                # one field
                watch("class " + name + "." + (plain(proxy.get("__qualname__")) or "?"), value, proxy,
                      word_at(id_(proxy) + 16).value)

    def arm_writes():
        if not memory["tags"] or "torch" not in sys.modules:
            return
        was, busy[0] = busy[0], True
        try:
            watch_new_dicts()
            for entry in watched_dicts:
                now = entry[2].value
                if now != entry[3]:    # written since it was last read (by a student cell, an import): copy it again
                    entry[3], entry[4] = now, dict_(entry[5])
        finally:
            busy[0] = was

    def check_writes():
        if not memory["tags"] or not watched_dicts:
            return
        was, busy[0] = busy[0], True
        try:
            cell = st.cell[0] if st.cell else "?"
            for entry in watched_dicts:
                now = entry[2].value
                if now == entry[3]:
                    continue
                copy = dict_(entry[5])
                if contents(copy) == contents(entry[4]):
                    remember("attnlab.rewritten", entry[0], cell, 0)
                entry[3], entry[4] = now, copy
        finally:
            busy[0] = was

    sys.modules[module_name] = rec
    sys.addaudithook(hook)
    # this cell's source out of linecache: a failing test's traceback passes through the gate's frames, and shows
    # the student no grader code there
    if "linecache" in sys.modules:
        sys.modules["linecache"].cache.pop(getframe(0).f_code.co_filename, None)
# run with a copy of the builtins as they are now, before any student code, as its globals: not the notebook's
# namespace, where a later global `type` or `isinstance` would be found before the builtin
(lambda f, b: type(f)(f.__code__, {"__builtins__": dict(vars(b)), "__name__": "__attnlab_audit_install__"}))(
    __attnlab_install_audit__, __import__("builtins"))(%r, %r, %r, %r, %r, %r)
del __attnlab_install_audit__
"""


# Run silently once, after the grader's first cells (which import torch) and before the first student cell.
# torch.func registers kernels of its own at its first call (vmap's decompositions, under the dispatch key
# FuncTorchBatched, among them one for aten::nll_loss_forward, an operator the tests' references use): loaded
# here, they are part of the reference state instead of a change the answer's cell seems to make (red team 13:
# a correct Jacobian by torch.func.vmap(torch.func.jacrev(...)) scored 0, flagged).
FUNCTORCH_PRELOAD = r"""
def __attnlab_load_functorch__():
    import sys
    if "torch" in sys.modules:
        from torch._functorch.vmap import lazy_load_decompositions
        lazy_load_decompositions()
        # from now on a library for torch's own operators is refused (AUDIT_SOURCE, install_torch_gate)
        sys.audit("attnlab.torch_gate_install")
        # not torch._dynamo (about 1.1 s of CPU in every graded notebook): the first call of a function torch keeps
        # out of compilation (under a dispatch mode, in torch.func) imports it in the student's frame, and the
        # library functions on that path that read a frame for its file name or module (round 21: every part of
        # chapter 2's model answer flagged) are bookkeeping to the audit hook (AUDIT_SOURCE's `bookkeeping`)
        # torch keeps its caller's stack for a message it may print later, in two places an honest answer reaches:
        # torch.manual_seed (and torch.seed) queue each device backend's seeding for its lazy start with
        # traceback.format_stack (the _lazy_call of torch.cuda, torch.xpu, torch.mtia), and anomaly mode
        # (torch.autograd.detect_anomaly) keeps every forward operation's stack through torch.fx.traceback's
        # format_stack. While a test runs, that is a read of the tests' frames, which the audit hook files under the
        # student's cell: a "reproducible" seed or a debugging anomaly check inside an answer was flagged as
        # tampering (round 22) instead of being an ordinary mistake or nothing. Those modules get a traceback
        # whose stack captures are empty (the message would have shown the tests' frames anyway)
        # torch wraps the __torch_dispatch__ of every TorchDispatchMode subclass in _disable_dynamo, whose first call
        # imports torch._dynamo (about 1.1 s of CPU): the modes the hidden tests of chapters 1, 2, 6 and 7 make in
        # each test paid it in every graded notebook. The wrap keeps torch.compile from tracing the mode's own code;
        # with torch._dynamo not loaded nothing is compiled, so a mode made then is left as it is written (one made
        # once torch.compile was used is wrapped as before)
        from torch.utils._python_dispatch import TorchDispatchMode
        modules = sys.modules
        TorchDispatchMode._should_skip_dynamo = classmethod(lambda cls: "torch._dynamo" in modules)
        import traceback, types
        quiet = types.ModuleType("traceback")
        quiet.__dict__.update(traceback.__dict__)
        quiet.format_stack = lambda f=None, limit=None: []
        quiet.extract_stack = lambda f=None, limit=None: traceback.StackSummary()
        for name, module in list(sys.modules.items()):
            keeps_stacks = name == "torch.fx.traceback" or (
                name.startswith("torch.") and callable(getattr(module, "_lazy_call", None)))
            if keeps_stacks and getattr(module, "traceback", None) is traceback:
                module.traceback = quiet
        # torch.set_default_dtype rebinds torch.Storage, a legacy name no test reads, in torch's module dict.
        # A function that set the dtype and put it back while a test ran (which leaves torch's
        # settings as it found them, as the notebooks ask) read to the watch of torch's dict (AUDIT_SOURCE's
        # check_writes) as a name of torch replaced and put back, and the notebook was flagged as tampering (round
        # 30). torch.Storage now lives outside the dict: torch's module object gets a class whose attribute writes
        # of that one name go to a slot of their own, and a read of it finds the slot (torch's module __getattr__ is
        # asked only for names the dict lacks). Every other name is written to the dict, and watched, as before
        torch = sys.modules["torch"]
        space = vars(torch)
        if "Storage" in space and type(torch) is types.ModuleType:
            slot = [space.pop("Storage")]
            lookup = space.get("__getattr__")

            def __getattr__(name):
                if name == "Storage":
                    return slot[0]
                if lookup is None:
                    raise AttributeError(f"module 'torch' has no attribute {name!r}")
                return lookup(name)

            class module(types.ModuleType):
                __slots__ = ()

                def __setattr__(self, name, value):
                    if name == "Storage":
                        slot[0] = value
                    else:
                        types.ModuleType.__setattr__(self, name, value)

            space["__getattr__"] = __getattr__
            torch.__class__ = module
try:
    __attnlab_load_functorch__()
except Exception:
    pass
del __attnlab_load_functorch__
"""


def audit_source() -> str:
    from .plain import HIDDEN_PREFIXES

    return AUDIT_SOURCE % (("compile", *AUDIT_EVENTS), AUDIT_ATTRS, AUDIT_MODULE, frozenset(PICKLE_MODULES),
                           frozenset(PICKLE_BUILTINS), HIDDEN_PREFIXES)


def audit_expression() -> str:
    """:func:`audit_source` as a user expression: the kernel compiles it once, as ``<attnlab audit>`` (a name of the
    hook's own code), in a namespace of its own. Sent as a cell, its 90 kB went through IPython's input transformers
    twice, its parser and its compiler: 170 to 270 ms in every grading kernel, against about 25 ms this way."""
    return (f"exec(compile({audit_source()!r}, '<attnlab audit>', 'exec', dont_inherit=True), "
            "{'__builtins__': __import__('builtins')})")


def gate_expression(gate: str, key: str | None = None) -> str:
    """A user expression, evaluated right after :data:`AUDIT_SOURCE` is installed and before any student code: it
    sets the secret that keys the tags of the grader's requests (:func:`request_tag`), and the key the hook signs
    its answers with (:func:`answer_of`). The only request that holds the secret itself: sent as an expression, it is
    in no cache of cell sources, and the kernel's copy of the request is emptied."""
    return f"__import__('sys').audit({', '.join(map(repr, ('attnlab.gate', gate, *([key] if key else []))))})"


def test_segments(source: str) -> list[tuple[bool, str, int]] | None:
    """A test cell cut at its hidden-test markers: ``(hidden, text, first line)`` per stretch, in order; None when
    the cell has no hidden tests or its stretches do not parse on their own."""
    segments = _test_segments(source)
    return None if segments is None else list(segments)


# a test cell is the course's own text, the same in every notebook of a chapter, and each of its stretches is
# compiled to check it: cut once per grading process, not once per notebook (see benchmarks/grader_cells.py)
@functools.lru_cache(maxsize=256)
def _test_segments(source: str) -> tuple[tuple[bool, str, int], ...] | None:
    from .plain import HIDDEN_BEGIN, HIDDEN_END

    lines = source.splitlines()
    segments, start, hidden = [], 0, False
    for number, line in enumerate(lines):
        marker = line.strip()
        if marker in (HIDDEN_BEGIN, HIDDEN_END):
            if line != marker or (marker == HIDDEN_BEGIN) == hidden:
                return None  # indented, or out of order: not a cell these stretches can run
            segments.append((hidden, "\n".join(lines[start:number]), start + 1))
            start, hidden = number + 1, marker == HIDDEN_BEGIN
    if hidden or not any(h for h, _, _ in segments):
        return None
    segments.append((False, "\n".join(lines[start:]), start + 1))
    segments = [(h, text, first) for h, text, first in segments if text.strip()]
    try:
        for _, text, _ in segments:
            compile(text, "<test cell>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return tuple(segments)


def stage_expression(source: str, gate: str, ticket: str, token: str) -> str:
    """A request (sent through :func:`request_expression`) that hands a test cell's lines (None when it has no
    hidden lines) and the token the hook leaves when the cell ran to its end to the audit hook under ``ticket``,
    before the cell runs: the cell's own code (:func:`test_cell_gate` or :func:`done_line` with the ticket) then
    holds neither, since an answer can read the running cell's request (red team 23)."""
    segments = test_segments(source) if gate else None
    return _gate_call("attnlab.stage", gate, ticket, None if segments is None else tuple(segments), token)


def test_cell_gate(source: str, gate: str, ticket: str) -> str | None:
    """The code the grader sends for a test cell with hidden tests: one line that hands the whole cell to the audit
    hook (red team 17: an answer reached the notebook's namespace through ``getattr(f, name)`` with the name found by
    ``dir(f)``, which no scan can follow, and replaced ``_close`` and ``_equal`` for the test that called it).
    Its first name lookups happen before any student code of the cell runs, right after the grader's check; the
    hidden lines then run in a namespace no answer's ``__globals__`` reaches. The lines and the token were staged
    under ``ticket`` (:func:`stage_expression`). When every line ran without an error, the hook leaves the token where
    the cell's user expression takes it back (execute.py); a cell the gate did not run has none. None: send the cell
    as it is."""
    if test_segments(source) is None or not gate:
        return None
    return f"{_nameless('attnlab.test', gate, ticket)} and None"


def bound_names(source: str) -> list[str]:
    """The names a cell binds in the notebook's namespace (none when it does not parse)."""
    return list(_bound_names(source))


# asked after every locked cell, whose text is the course's own: parsed once per grading process
@functools.lru_cache(maxsize=256)
def _bound_names(source: str) -> tuple[str, ...]:
    try:
        tree = _parse_cell(source)
    except TooDeep:
        return ()
    return () if tree is None else tuple(dict.fromkeys(name for name, _ in module_bindings(tree)))


def trust_expression(names, gate: str) -> str:
    """A user expression, sent right after a grader's own cell ran: the names it bound go into the hidden tests'
    namespace as they are now."""
    return _gate_call("attnlab.trust", gate, tuple(sorted(set(names))))


# The check itself, run through exec in a namespace of its own; P holds the grader's parameters.
PROBE_SOURCE = r"""
def _probe(P):
    import sys, types
    # the builtins as they were before any student code, handed over by the hook (K; None where the probe runs
    # without it, in the tests): the module itself is fingerprinted, its functions are not used
    LIVE = sys.modules["builtins"]
    B = K.builtins if K is not None else LIVE
    _audit = K.audit if K is not None else sys.audit
    _id, _vars, _type, _len, _sorted, _tuple, _hash, _repr = B.id, B.vars, B.type, B.len, B.sorted, B.tuple, B.hash, B.repr
    _isinstance, _real_dict, _getattr, _str = B.isinstance, B.dict, B.getattr, B.str
    Function, Proxy = types.FunctionType, types.MappingProxyType
    class_dict = K.class_dict if K is not None else _type.__dict__["__dict__"].__get__
    class_mro = K.class_mro if K is not None else _type.__dict__["__mro__"].__get__
    class_name = _type.__dict__["__qualname__"].__get__

    def _dict(x):
        # a copy of a plain dict or of a class's mapping proxy; anything else (a dict subclass, whose iteration would
        # run an answer's code here, red team 23) is not read: a mapping that says so, and changes the fingerprint
        if _type(x) is _real_dict or _type(x) is Proxy:
            return _real_dict(x)
        return {"(not a plain dict)": _id(_type(x))}
    groups = {}
    errors = []

    # torch's own lazy wrappers: importing torch._dynamo (torch.compile, a dispatch mode's first call) wraps
    # torch.manual_seed, and compiling wraps nn.Module.__init__/__setstate__. Such a wrapper counts as the
    # function it wraps, found in its closure, only when its code is that torch function's own code.
    wrappers = {}
    for module_name, function_name, inner_names in (("torch._compile", "_disable_dynamo", ("inner",)),
                                                    ("torch._dynamo.mutation_guard", "install_generation_tagging_init",
                                                     ("patched_init", "patched_setstate"))):
        outer = _getattr(sys.modules.get(module_name), function_name, None)
        if _type(outer) is Function and outer.__code__.co_filename.startswith(P["torch_dir"]):
            for const in outer.__code__.co_consts:
                if _type(const) is types.CodeType and const.co_name in inner_names:
                    wrappers[_id(const)] = const

    # (value, its code): reading __code__ raises an audit event that the grader's hook inspects, so each
    # function's code is read once per probe
    def unwrap(value):
        code = value.__code__
        for _ in range(4):
            if wrappers.get(_id(code)) is not code or not value.__closure__:
                break
            inner = [c.cell_contents for c in value.__closure__ if _type(c.cell_contents) is Function]
            if _len(inner) != 1:
                break
            value = inner[0]
            code = value.__code__
        return value, code

    def fp(value):
        if _type(value) is Function:
            value, code = unwrap(value)
            return (_id(value), _id(code), _id(value.__defaults__), _id(value.__kwdefaults__))
        return _id(value)

    def seq(value):
        try:
            return (_id(value), *[fp(v) for v in value])
        except Exception:
            return (_id(value), -1)

    def namespace(label, ns, skip=()):
        try:
            groups[label] = {k: fp(v) for k, v in _dict(ns).items() if _isinstance(k, _str) and k not in skip}
        except Exception as err:
            errors.append(label + ": " + _repr(err))

    volatile = {"input", "raw_input", "get_ipython", "display", "exit", "quit", "_", "__", "___", "__IPYTHON__"}
    # what Python and torch rebind themselves: a module's warning registry (a warning torch raises on its own
    # behalf), torch.Storage (torch.set_default_dtype), set back to float32 before every test cell
    rebound = {"__warningregistry__", "Storage"}
    for name in P["modules"]:
        module = sys.modules.get(name)
        if module is not None:
            namespace("module " + name, _vars(module), volatile | rebound if name == "builtins" else rebound)
    for name in P["class_modules"]:
        module = sys.modules.get(name)
        if module is not None:
            for key, value in _sorted(_dict(_vars(module)).items()):
                if _isinstance(value, _type) and _getattr(value, "__module__", None) == name:
                    namespace("class " + name + "." + key, _vars(value))
    groups["sys.modules"] = {name: _id(sys.modules.get(name)) for name in P["modules"] + ["sys", "torch._C"]}
    torch = sys.modules.get("torch")
    if torch is not None:
        namespace("module torch._C", _vars(torch._C))
        for label, cls in (("torch.Tensor", torch.Tensor), ("torch._C.TensorBase", _getattr(torch._C, "TensorBase", None)),
                           ("torch.nn.Module", torch.nn.Module), ("torch.nn.Parameter", torch.nn.Parameter)):
            if cls is not None:  # the flag compiling sets on nn.Module when it wraps __init__
                namespace("class " + label, _vars(cls), ("___needs_generation_tag_patch",))
    hooks = {}
    hooks["the trace function (sys.settrace)"] = _id(sys.gettrace())
    hooks["the profile function (sys.setprofile)"] = _id(sys.getprofile())
    threading = sys.modules.get("threading")
    if threading is not None:
        hooks["threading's trace hook (threading.settrace)"] = _id(_getattr(threading, "_trace_hook", None))
        hooks["threading's profile hook (threading.setprofile)"] = _id(_getattr(threading, "_profile_hook", None))
    for name in ("excepthook", "displayhook", "breakpointhook", "unraisablehook", "__excepthook__", "__displayhook__"):
        hooks["sys." + name] = _id(_getattr(sys, name, None))
    # a test cell's first line calls sys.audit, through the module sys, to reach the gate (guard.test_cell_gate):
    # a replaced one would be handed the cell's secret and token
    hooks["sys.audit"] = _id(_getattr(sys, "audit", None))
    hooks["the module sys"] = _id(sys)
    # torch's frame-evaluation callbacks (PEP 523) are handed every frame as it starts, with no audit event (red
    # team 17 F4: one patched a hidden segment's namespace before its first line); torch.compile sets them only
    # while a compiled function runs, so between cells they are torch's own
    eval_frame = _getattr(_getattr(_getattr(sys.modules.get("torch"), "_C", None), "_dynamo", None), "eval_frame", None)
    for name in ("get_eval_frame_callback", "get_bytecode_debugger_callback"):
        getter = _getattr(eval_frame, name, None)
        if getter is not None:
            try:
                hooks["torch's frame callback (" + name + ")"] = fp(getter())
            except Exception as err:
                errors.append(name + ": " + _repr(err))
    audit = sys.modules.get(P["audit"])
    # the hook answers through the gate only; a module with its name proves nothing (red team 17 F1, F3)
    box = {}
    _audit("attnlab.probe", P["gate"], box)
    student_code = box.get("student_code")
    # the hook answers the grader's own tag (one an answer spent first leaves this box empty: red team 24)
    hooks["the audit hook's answer to this check"] = student_code is not None or K is None
    if threading is not None and student_code is not None:
        # a thread running the student's code after its cell ended: it can change what the next cells see while
        # they run, after this check (red team 15: a thread swapped the tests' helpers inside each test cell)
        # read without running any code of the answer's (red team 23: a Thread subclass's `_target` property ran
        # inside this check, where the gate's secret is): attributes only through the classes' own dicts and the
        # interpreter's own types, and a thread whose class (or a descriptor in it) is the student's counts as
        # running the student's code
        import functools
        partial, method = functools.partial, types.MethodType

        def code_of_value(v, depth=0):
            kind = _type(v)
            if kind is Function:
                return v.__code__
            if kind is property:
                return next((f.__code__ for f in (v.fget, v.fset, v.fdel) if _type(f) is Function
                             and student_code(f.__code__)), None)
            if kind is staticmethod or kind is classmethod:
                return code_of_value(v.__func__, depth + 1)
            if kind is method:
                return code_of_value(v.__func__, depth + 1)
            if kind is partial:
                return code_of_value(v.func, depth + 1)
            return class_code(kind, depth + 1)

        cache = K.cache if K is not None else {}

        def class_code(cls, depth=0):
            # the first code of the student's found in the dicts of `cls` and its bases (descriptors included),
            # remembered while what the dicts hold is the same objects (the probe runs before every cell)
            if depth > 4:
                return None
            key = (_id(cls), *[(_id(c), *[_id(v) for v in class_dict(c).values()]) for c in class_mro(cls)])
            if key in cache:
                return cache[key]
            cache[key] = found = scan_classes(cls, depth)
            return found

        def scan_classes(cls, depth):
            for c in class_mro(cls):
                for v in class_dict(c).values():
                    if _type(v) is _type or v is c:
                        continue
                    code = code_of_value(v, depth + 1)
                    if code is not None and student_code(code):
                        return code
            return None

        def callable_code(v, depth=0):
            # whether a callable is a Python function (through partial objects and bound methods) rather than a
            # builtin, such as exec or eval, handed the text it runs
            kind = _type(v)
            if kind is partial and depth < 8:
                return callable_code(v.func, depth + 1)
            if kind is method and depth < 8:
                return callable_code(v.__func__, depth + 1)
            return kind is Function

        running = []
        main_ident = K.get_ident() if K is not None else threading.get_ident()
        try:
            current = K.current_frames() if K is not None else sys._current_frames()
            # the threads there were before any student code (the first probe runs before the first cell): a thread
            # started since that runs code made from text (its target `exec`, its frames "<string>") has no code of
            # the student's anywhere a check reads, yet runs the answer's text after its cell (red team 24)
            before = cache.setdefault("threads before the student's code", _tuple(current))
            for ident, frame in current.items():
                if ident == main_ident:
                    continue
                codes, thread, made_from_text = [], None, False
                while frame is not None:
                    name = frame.f_code.co_filename
                    if ident not in before and (_type(name) is not _str or name[:1] == "<"):
                        made_from_text = True
                    codes.append(frame.f_code)
                    if thread is None and frame.f_code.co_name == "_bootstrap_inner" and frame.f_code.co_filename == (
                            K.threading_file if K is not None else threading.__file__):
                        thread = _dict(frame.f_locals).get("self")
                    frame = frame.f_back
                name = ident
                if thread is not None:
                    code = class_code(_type(thread))
                    if code is not None:
                        codes.append(code)
                    else:  # threading's own classes (or a library's): their instance dict is a plain one
                        state = _dict(object.__getattribute__(thread, "__dict__"))
                        name = state.get("_name", ident)
                        for key in ("_target", "function"):
                            value = state.get(key)
                            if value is not None:
                                codes.append(code_of_value(value))
                                # a thread started since, whose target is no Python function (`exec` with a text, a
                                # threading.Timer of `exec`): what it runs is text no check reads (red team 24)
                                made_from_text = made_from_text or (ident not in before and not callable_code(value))
                if made_from_text or B.any(c is not None and student_code(c) for c in codes):
                    running.append(_repr(name))
        except Exception as err:
            errors.append("threads: " + _repr(err))
        hooks["threads that run the student's code after its cell (threading)"] = _tuple(_sorted(running))
        # what an answer leaves for the garbage collector to call later, in the middle of the grader's own code and
        # with no frame of a student cell on the stack (red team 24: weakref.finalize(obj, exec, text, d) read the
        # request the grader was running and sent it first): a finalizer registered since the first probe whose
        # function is no Python function, or code of the student's or made from text; and the collector's callbacks
        import gc, weakref
        left = []
        try:
            finalize = weakref.finalize
            first = cache.setdefault("finalizers before the student's code", (
                class_dict(finalize).get("_registry"), class_dict(finalize).get("_Info"),
                _tuple(_id(k) for k in _dict(class_dict(finalize).get("_registry")))))
            registry, info_type, known = first
            if class_dict(finalize).get("_registry") is not registry or _type(registry) is not _real_dict:
                left.append("weakref.finalize's registry replaced")
            else:
                read_func = class_dict(info_type)["func"].__get__
                for key, info in _tuple(registry.items()):
                    if _id(key) in known:
                        continue
                    func = read_func(info) if _type(info) is info_type else None
                    while _type(func) is partial or _type(func) is method:
                        func = func.func if _type(func) is partial else func.__func__
                    if _type(func) is not Function:
                        left.append(class_name(_type(func)))
                    elif student_code(func.__code__) or _type(func.__code__.co_filename) is not _str or (
                            func.__code__.co_filename[:1] == "<"):
                        left.append("a function of the student's or made from text")
        except Exception as err:
            errors.append("finalizers: " + _repr(err))
        hooks["finalizers the garbage collector would run for the student's code (weakref.finalize)"] = _tuple(left)
        callbacks = _getattr(gc, "callbacks", None)
        hooks["the garbage collector's callbacks (gc.callbacks)"] = (
            seq(callbacks) if _type(callbacks) is B.list else _id(callbacks))
    hooks["the import system (sys.meta_path)"] = seq(sys.meta_path)
    hooks["the import system (sys.path_hooks)"] = seq(sys.path_hooks)
    hooks["the import system (sys.path_importer_cache)"] = (_id(sys.path_importer_cache), *_sorted(
        {_id(_type(v)) for v in _dict(sys.path_importer_cache).values() if v is not None}))
    hooks["builtins.__import__"] = _id(LIVE.__import__)
    if torch is not None:
        C = torch._C
        modes = C._len_torch_function_stack()
        # torch's own default-device modes (torch.set_default_device, a `with torch.device(...)` left open)
        # change where tensors are made, not what a test sees, and the grader takes them off before every test
        # cell (red team 15: the usual PyTorch 2 preamble flagged an honest notebook)
        device_module = sys.modules.get("torch.utils._device")
        if modes and device_module is not None:
            try:
                kind = _getattr(device_module, "DeviceContext", None)
                handler = _getattr(kind, "__dict__", {}).get("__torch_function__")
                if kind is not None and _type(handler) is Function and handler.__code__.co_filename.startswith(P["torch_dir"]):
                    for i in B.range(modes):
                        mode = C._get_function_stack_at(i)
                        if (_type(mode) is kind and "__torch_function__" not in _getattr(mode, "__dict__", {})
                                and _type(_getattr(mode, "device", None)) is torch.device):
                            modes -= 1
            except Exception as err:
                errors.append("device mode: " + _repr(err))
        hooks["torch's function-mode stack (an active TorchFunctionMode)"] = modes
        if _getattr(C, "_len_torch_dispatch_stack", None) is not None:
            hooks["torch's dispatch-mode stack (an active TorchDispatchMode)"] = C._len_torch_dispatch_stack()
        # the kernels behind the comparisons the tests make (torch.testing.assert_close, torch.equal): a kernel
        # registered for them from Python (torch.library) changes what the dispatcher lists for the op
        kernels = []
        for op in P["compare_ops"]:
            try:
                kernels.append(_hash(C._dispatch_dump(op)))
            except Exception:
                kernels.append(None)
        hooks["the kernels of torch's comparison operators (torch.library)"] = _tuple(kernels)
        kernels = []
        for op in P["reference_ops"]:
            try:
                kernels.append(_hash(C._dispatch_dump(op)))
            except Exception:
                kernels.append(None)
        hooks["the kernels of the operators the tests' references use (torch.library)"] = _tuple(kernels)
        # the same operators' Python kernels, which torch runs instead of the dispatcher's when its Python
        # dispatcher is on (`op.py_impl(DispatchKey.CPU)(f)`, or an entry written into the op's own cache): a
        # kernel for aten::isclose and aten::equal from a student cell made every comparison agree (red team 11)
        ops = _getattr(_getattr(torch, "ops", None), "aten", None)
        DispatchKey = _getattr(C, "DispatchKey", None)
        python_kernels = []

        def torchs(v):
            return _type(v) is Function and v.__code__.co_filename.startswith(P["torch_dir"])
        for op in P["compare_ops"]:
            name, _, overload = op[6:].partition(".")
            try:
                overload = _getattr(_getattr(ops, name), overload or "default")
                # torch's own (its Meta kernels, what torch.compile registers) are not the student's
                own = _tuple(_sorted((_repr(k), _id(v)) for k, v in _dict(overload.py_kernels).items() if not torchs(v)))
                cached = _tuple(_sorted((_repr(k), _id(v)) for k, v in _dict(overload._dispatch_cache).items()
                                        if _type(v) is not DispatchKey and not torchs(v)))
                python_kernels.append((op, own, cached))
            except Exception:
                python_kernels.append((op, None))
        hooks["the Python kernels of torch's comparison operators (py_impl)"] = _tuple(python_kernels)
        # state that every later computation goes through, the tests' references included (red team 11): saved-
        # tensor hooks left pushed (their unpack changes what a reference's backward reads), the dispatch keys
        # this thread includes or excludes (the Python key excluded: no dispatch mode, such as a test's watch,
        # sees an operation; autocast left on), and torch.nn.Module's global hooks (kept in dicts changed in place)
        autograd = _getattr(C, "_autograd", None)
        top = _getattr(autograd, "_top_saved_tensors_default_hooks", None)
        if top is not None:
            try:
                pair = top(True)
                hooks["torch's saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks)"] = (
                    None if pair is None else _tuple(fp(h) for h in pair))
            except Exception as err:
                errors.append("saved-tensor hooks: " + _repr(err))
        for name in ("_dispatch_tls_local_include_set", "_dispatch_tls_local_exclude_set"):
            function = _getattr(C, name, None)
            if function is not None:
                hooks["torch's dispatch keys of this thread (" + name + ")"] = _repr(function())
        module_hooks = sys.modules.get("torch.nn.modules.module")
        if module_hooks is not None:
            found = []
            for key, value in _sorted(_dict(_vars(module_hooks)).items()):
                if _isinstance(key, _str) and key.startswith("_global_") and _isinstance(value, _real_dict):
                    found.append((key, _id(value), *[(k if _isinstance(k, (B.int, _str)) else _id(k), fp(v))
                                                     for k, v in _real_dict.items(value)]))
            hooks["torch.nn.Module's global hooks (register_module_forward_hook, ...)"] = _tuple(found)
    hooks["the grader's audit hook"] = (_id(audit), _id(student_code), _id(_getattr(student_code, "__code__", None)))
    groups["hooks"] = hooks
    shell_module = sys.modules.get("IPython.core.interactiveshell")
    shell = shell_module.InteractiveShell._instance if shell_module is not None else None
    if shell is not None:
        ip = {}
        manager = shell.input_transformer_manager
        ip["IPython's input transformers (input_transformers_cleanup)"] = seq(shell.input_transformers_cleanup)
        ip["IPython's input transformers (input_transformers_post)"] = seq(shell.input_transformers_post)
        ip["IPython's input transformer manager"] = (_id(manager), _id(_type(manager)))
        for name in ("cleanup_transforms", "line_transforms", "token_transformers"):
            ip["IPython's input transformers (input_transformer_manager." + name + ")"] = seq(_getattr(manager, name, ()))
        ip["IPython's AST transformers (ast_transformers)"] = seq(shell.ast_transformers)
        ip["IPython's custom exception handlers (custom_exceptions)"] = seq(shell.custom_exceptions)
        ip["IPython's custom exception handler (set_custom_exc)"] = _id(shell.CustomTB)
        ip["IPython's compiler"] = (_id(shell.compile), _id(_type(shell.compile)))
        ip["IPython's traceback printer"] = (_id(shell.InteractiveTB), _id(_type(shell.InteractiveTB)))
        ip["IPython's display hook"] = _id(shell.displayhook)
        prefixes = _tuple(p for p in {sys.prefix, sys.base_prefix} if p)
        for event, callbacks in _sorted(_dict(shell.events.callbacks).items()):
            own = []   # callbacks registered by installed libraries (matplotlib's inline backend) are not hooks
            for cb in callbacks:
                code = _getattr(_getattr(cb, "__func__", cb), "__code__", None)
                if code is None or not code.co_filename.startswith(prefixes):
                    own.append(_id(cb))
            ip["IPython's event callbacks (" + event + ")"] = (_id(callbacks), *own)
        plain = shell.display_formatter.formatters.get("text/plain")
        ip["IPython's text formatter"] = (_id(shell.display_formatter), _id(plain))
        ip["IPython's text formatter's printers"] = (*_sorted(fp(v) for v in _dict(plain.type_printers).values()),
                                                     *_sorted(fp(v) for v in _dict(plain.deferred_printers).values()))
        # the classes every cell's text, code and value pass through, besides the shell's own (red team 23: a
        # replaced TransformerManager.transform_cell, on the class, rewrote each test cell's hidden lines to `pass`,
        # and PlainTextFormatter.__call__ rewrote this check's answer): their methods as they are now. The classes
        # the transformer manager lists (IPython's token transformers) are among them
        path = [manager, shell.compile, shell.display_formatter, plain, shell.displayhook]
        for name in ("cleanup_transforms", "line_transforms", "token_transformers"):
            path.extend(t for t in _getattr(manager, name, ()) if _type(t) is _type)
        seen_classes = set()
        for index, obj in enumerate(path):
            mro = class_mro(obj if _type(obj) is _type else _type(obj))
            for cls in mro:
                module = class_dict(cls).get("__module__")
                if cls not in seen_classes and _type(module) is _str and module.startswith(("IPython", "ipykernel", "codeop")):
                    seen_classes.add(cls)
                    # what each name is bound to (a replaced method is another object); cheap, as this runs before
                    # every cell (a function's code replaced in place is the audit hook's to see)
                    groups["class " + module + "." + class_name(cls)] = {
                        k: _id(v) for k, v in _dict(class_dict(cls)).items() if _type(k) is _str}
            if _type(obj) is not _type:
                # the object's own attributes that stand for its class's methods (red team 23: transform_cell set on
                # the transformer manager itself, ast_parse on the compiler)
                try:
                    own = _dict(object.__getattribute__(obj, "__dict__"))
                except Exception:
                    own = {}
                methods = set()
                for cls in mro:
                    methods.update(k for k in class_dict(cls) if _type(k) is _str)
                for key in _sorted(k for k in own if _type(k) is _str and k in methods and callable(own[k])):
                    ip["the own " + key + " of the cell path's object " + _str(index)] = fp(own[key])
        instance = _dict(_vars(shell))
        for cls in _type(shell).__mro__:
            if cls.__module__.startswith(("IPython", "ipykernel")):
                namespace("class " + cls.__module__ + "." + cls.__qualname__, _vars(cls))
                for key in _vars(cls):
                    if key in instance and callable(instance[key]):
                        ip["the shell's own " + key] = fp(instance[key])
        kernel = _getattr(shell, "kernel", None)
        if kernel is not None:
            kinstance = _dict(_vars(kernel))
            for cls in _type(kernel).__mro__:
                if cls.__module__.startswith("ipykernel"):
                    namespace("class " + cls.__module__ + "." + cls.__qualname__, _vars(cls))
                    for key in _vars(cls):
                        if key in kinstance and callable(kinstance[key]):
                            ip["the kernel's own " + key] = fp(kinstance[key])
            ip["the kernel's message handlers"] = _tuple(_sorted(
                (k, fp(v)) for k, v in _dict(_getattr(kernel, "shell_handlers", {})).items()))
            # what carries the kernel's replies to the grader: an answer that replaced the session's `send` (or a
            # stream's) could drop the real reply of a test cell after sending a forged one (red team 16)
            for label in ("session", "shell_stream", "iopub_socket", "iopub_thread"):
                carrier = _getattr(kernel, label, None)
                if carrier is None:
                    continue
                ip["the kernel's " + label] = _id(carrier)
                if label == "session":  # a stream's own callbacks change as it works; the session's do not
                    ip["the kernel's session's own methods"] = _tuple(_sorted(
                        (k, fp(v)) for k, v in _dict(_vars(carrier)).items() if _isinstance(k, _str) and callable(v)))
                for cls in _type(carrier).__mro__:
                    if cls.__module__.startswith(("jupyter_client", "ipykernel", "zmq")):
                        namespace("class " + cls.__module__ + "." + cls.__qualname__, _vars(cls))
            streams = _getattr(kernel, "shell_streams", None)
            if streams is not None:
                ip["the kernel's shell_streams"] = seq(streams)
        groups["ipython"] = ip
        user = {}
        ns = shell.user_ns
        for key in P["protected"]:
            if key in ns:
                value = ns[key]
                user[key] = _id(value)
                if _type(value) is _real_dict:
                    for k, v in _dict(value).items():
                        user[key + "[" + _repr(k) + "]"] = _id(v)
        for name in P["test_builtins"]:
            if name in shell.user_ns:
                user["builtin " + name + " shadowed"] = 1
        # the builtins the notebook's own lines resolve names through (red team 17 F2: a dict put there whose
        # __import__ handed the test cell's first line a stand-in sys)
        user["the notebook's __builtins__"] = _id(ns.get("__builtins__"))
        groups["user"] = user
    # signal handlers and timers: a handler is handed the running frame, a test's while one runs (red team 16 F14)
    try:
        import signal as sg
        handlers = {}
        for number in _sorted(int(n) for n in sg.valid_signals()):
            try:
                handler = sg.getsignal(number)
            except (ValueError, OSError):
                continue
            code = _getattr(handler, "__code__", None)
            # a library's own handler (torch's worker clean-up, say) is not the student's: only whose it is counts
            library = code is not None and student_code is not None and not student_code(code)
            handlers["handler of signal " + _str(number)] = "a library's" if library else fp(handler)
        for name in ("ITIMER_REAL", "ITIMER_VIRTUAL", "ITIMER_PROF"):
            handlers["timer " + name + " armed"] = _tuple(v > 0 for v in sg.getitimer(_getattr(sg, name)))
        groups["signals"] = handlers
    except Exception as err:
        errors.append("signals: " + _repr(err))
    box = {"take": True, "cell": P["cell"]}
    _audit("attnlab.probe", P["gate2"], box)
    taken = box.get("events", [])
    want = P["detail"]
    digest = {label: _hash(_tuple(_sorted(g.items()))) for label, g in groups.items()}
    detail = {label: g for label, g in groups.items() if want is None or label in want}
    return _repr({"nonce": P["nonce"], "digest": digest, "detail": detail, "events": taken, "errors": errors})
R = _probe(P)
"""


@functools.lru_cache(maxsize=1)
def _torch_dir() -> str:
    """The folder of the torch package with a trailing slash, found without importing torch (a string no
    file name starts with when torch is absent)."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    return os.path.dirname(spec.origin) + os.sep if spec and spec.origin else "\0"


def probe_expression(nonce: str, *, cell: tuple[str, str] | None = None, detail: list[str] | None = (),
                     test_builtins=(), protected=(), modules: tuple[str, ...] = WATCHED_MODULES, gate: str = "") -> str:
    """A ``user_expressions`` entry whose value is the fingerprint of the kernel, as a ``repr`` string.

    ``cell`` is ``(grade id, "student" or "grader")`` of the cell about to run; ``detail`` names the
    groups to send in full (None: all), the others come as digests only."""
    params = {"nonce": nonce, "cell": list(cell) if cell else None, "detail": None if detail is None else list(detail),
              "test_builtins": sorted(test_builtins), "modules": list(modules), "class_modules": list(WATCHED_CLASS_MODULES),
              "compare_ops": list(COMPARE_OPS), "reference_ops": list(REFERENCE_OPS),
              "audit": AUDIT_MODULE, "gate": request_tag(gate, "attnlab.probe", ()),
              "gate2": request_tag(gate, "attnlab.probe", ()),
              "torch_dir": _torch_dir(),
              "protected": sorted(n for n in protected if not n.startswith("__attnlab"))}
    # K: what the hook hands over (its snapshot of the builtins, sys.audit as it was); the name __attnlab_kernel__
    # is folded to it by the hook's request (execute.py sends every expression as one), and is None elsewhere
    # P travels as JSON text (one constant, read by the C parser), not as a literal the request compiles node by node
    # the source is compiled once by the hook (K.run), or by exec where the probe runs without it
    return (f"(lambda K: (lambda d: (K.run if K is not None else __import__('builtins').exec)({PROBE_SOURCE!r}, d) "
            f"or d['R'])({{'__builtins__': K.builtins.__dict__ if K is not None else __import__('builtins'), "
            f"'K': K, 'P': __import__('json').loads({json.dumps(params)!r})}}))(__attnlab_kernel__)")


def read_probe(text, nonce: str) -> dict | None:
    """The probe's answer from ``user_expressions`` text, or None when it is not a genuine answer."""
    try:
        value = ast.literal_eval(text)
        if isinstance(value, str):
            value = ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if not isinstance(value, dict) or value.get("nonce") != nonce:
        return None
    if not all(isinstance(value.get(k), t) for k, t in (("digest", dict), ("detail", dict), ("events", list))):
        return None
    return value


# modules that gain no attribute of their own while torch runs: a new one there is an answer's (torch._VF.einsum
# set on the module object shadows the operator behind torch.einsum)
CLOSED_GROUPS = frozenset("module " + name for name in (
    "torch._VF", "torch._C._nn", "torch._C._linalg", "torch._C._special", "torch._C._fft"))
_BUILTIN_NAMES = frozenset(n for n in dir(builtins) if not n.startswith("_"))


def compare(baseline: dict[str, dict], current: dict[str, dict]) -> list[tuple[str, str]]:
    """``(group, key)`` of every entry that differs, appeared or disappeared (groups of ``current`` only)."""
    changed = []
    for group, now in current.items():
        before = baseline.get(group, {})
        new_keys_count = group.startswith(("class ", "hooks", "ipython", "sys.modules")) or group in CLOSED_GROUPS
        for key in sorted(set(before) | set(now), key=str):
            if key in before and key not in now:
                changed.append((group, key))
            elif key in now and key not in before:
                # a new global of a watched module named after a builtin shadows it for that module's functions
                if new_keys_count or (group == "user" and key.startswith("builtin ")) or (
                        group.startswith("module ") and group != "module builtins" and key in _BUILTIN_NAMES):
                    changed.append((group, key))
            elif before[key] != now[key]:
                changed.append((group, key))
    return changed


def reason(cell_id: str, group: str, key: str) -> str:
    """Why a changed entry of the fingerprint flags cell ``cell_id``, in words."""
    if group == "user" and key.startswith("builtin "):
        return f"cell {cell_id}: shadows the {key.removesuffix(' shadowed')}, which the tests use"
    return f"cell {cell_id}: {describe(group, key)} changed while the cell ran"


def describe(group: str, key: str) -> str:
    """What an entry of the fingerprint is, in words (``torch.allclose``, ``IPython's AST transformers``)."""
    if group.startswith(("module ", "class ")):
        return f"{group.split(' ', 1)[1]}.{key}"
    if group == "sys.modules":
        return f"sys.modules[{key!r}]"
    return key


AUDIT_WHY = {
    "sys._getframe": "reads stack frames (sys._getframe), where the tests keep their expected values",
    "sys._current_frames": "reads stack frames (sys._current_frames)",
    "gc.get_objects": "searches the interpreter's objects (gc.get_objects)",
    "gc.get_referrers": "searches the interpreter's objects (gc.get_referrers)",
    "gc.get_referents": "searches the interpreter's objects (gc.get_referents)",
    "sys.settrace": "sets a trace function (sys.settrace)",
    "sys.setprofile": "sets a profile function (sys.setprofile)",
    "code.__new__": "builds a code object",
    "sys.addaudithook": "tries to add an audit hook (refused)",
    "attnlab.trust": "asks the grader, with the gate's secret, to trust names while a test cell runs (refused)",
    "attnlab.test": "asks the grader, with the gate's secret, to run a test while a test cell runs (refused)",
    "attnlab.eval": "asks the grader, with the gate's secret, to evaluate a request while a test cell runs (refused)",
    "linecache.cache": ("replaced linecache.cache, where IPython keeps each cell's text, with something that is not "
                        "a plain dict: it could keep the text of the tests"),
    "marshal.loads": "loads code from bytes (marshal), which no check can read",
    "marshal.load": "loads code from a file (marshal), which no check can read",
    "torch.set_eval_frame": ("sets torch's frame-evaluation callback to a function of its own "
                             "(torch._C._dynamo.eval_frame.set_eval_frame), which sees and can rewrite the tests' "
                             "frames (refused)"),
    "signal.signal": ("sets a signal handler of its own (signal.signal): Python hands a handler the frame that was "
                      "running, a test's among them (refused)"),
    "torch.library": ("registers kernels for torch's own operators (torch.library), which would change what the "
                      "tests compute (refused)"),
    "torch.python_dispatcher": ("turns on torch's Python dispatcher (torch._C._EnablePythonDispatcher), which runs "
                                "Python kernels of torch's operators and would change what the tests compute (refused)"),
    "torch.mode": ("pushes a torch dispatch or function mode that is not the test's own while a test runs, from an "
                   "answer's code or a callback it left: the mode would see and change what the test's own lines "
                   "compute (refused)"),
    "signal.module": "makes a second instance of a module the grader guards (_signal or _imp) (refused)",
    "introspection.text": ("code made from text (exec or eval of a string, run by a thread or a collector's "
                           "callback the answer left) asked for stack frames or the interpreter's objects, where the "
                           "tests and the grader keep their values (refused)"),
    "gc.enable": ("turned the garbage collector back on while a test or the grader's own cell ran (the collector "
                  "runs callbacks an answer left, in the middle of the tests' code)"),
    "compile.grader_name": "compiles code under a name of the grader's own code or of a frozen module (refused)",
    "attnlab.replay": ("sent one of the grader's requests again, read while it waited, before the grader's own copy "
                       "(which was then refused)"),
    "attnlab.request": ("makes one of the grader's requests (its secret read from the running cell's request) from "
                        "an answer's code: only the grader's own cells and checks make them (refused)"),
    "compile.cell_name": ("compiles code under a notebook cell's file name, other than IPython does for the cell "
                          "being run: its frames would pass for that cell's"),
    "torch.eval_frame_left": ("left torch's frame-evaluation callback set when the grader's code started (a "
                              "torch.compile context entered and never left): it would see the tests' frames (taken back)"),
}


def _compile_reason(what: str) -> str:
    return (f"compiles code under the file name {what!r}, which is no cell of the notebook (its frames would pass "
            "for another file's)")


def _exec_reason(what: str) -> str:
    return (f"runs code from the file {os.path.basename(what)!r}, which is no cell of the notebook: the checks read "
            "only the cells (the exercises use torch alone; write every function in the notebook)")


def describe_event(event: str, what: str) -> str:
    if event == "attnlab.rewritten":
        return (f"replaced a name of {what} and put it back while the test ran (a method, a function or a setting "
                "that the test's own lines then read): what the test computed went through the answer's code")
    if event == "introspection.text":
        return AUDIT_WHY[event] + (f" ({what})" if what else "")
    if event == "exec":
        return _exec_reason(what)
    if event == "compile.text":
        return ("makes code from text as it runs (exec, eval or compile of a string): code that no cell holds, which "
                "the checks cannot read and whose frames would pass for a library's (write the function in the cell)")
    if event == "compile":
        return _compile_reason(what)
    if event in AUDIT_WHY:
        return AUDIT_WHY[event]
    if event == "object.__getattr__":
        if what in ("__code__", "gi_code"):
            return f"reads a function's code ({what})"
        if what == "f_code":
            return "reads the code of a frame (f_code), a test's among them"
        return f"reads a frame from a traceback or generator ({what})"
    if event == "object.__setattr__":
        return f"replaces a function's code ({what})"
    if event == "pickle.find_class":
        return (f"unpickles a reference to {what}, which calls code no check can read (a way around the library "
                "rule or the tamper guard)")
    if event.startswith("ctypes."):
        return f"uses ctypes ({event}), which reaches any memory of the grader's code"
    return f"starts a program ({event})"
