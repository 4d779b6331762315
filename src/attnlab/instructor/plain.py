"""Plain values for hidden tests, and the rule that every hidden test uses them.

A hidden test must never let student code take part in a comparison: a ``torch.Tensor`` subclass
can answer ``allclose`` with ``True``, a ``str`` subclass can equal every answer. So every exercise
notebook carries one locked cell, ``grading_helpers``, generated from :func:`_attnlab_plain_helpers`
below by ``attnlab-course generate`` (never edited by hand), that defines, before any student cell
runs:

``_tensor(x, what, dtype=None, shape=None)``
    ``x`` must be exactly a ``torch.Tensor`` (``nn.Parameter`` is accepted; any other subclass is
    refused), dense and with data; returns a detached copy, so nothing of the student's object is
    left in it. ``dtype``/``shape`` are checked when given.
``_number(x, what)``
    an exact ``int`` or ``float`` (or a NumPy real scalar), not ``bool``, as a ``float``.
``_float(x, what)``, ``_integer(x, what)``, ``_text(x, what)``, ``_flag(x, what)``
    exactly a Python ``float``, ``int`` (not ``bool``), ``str``, ``bool``.
``_plain(x, what)``
    any of the above, or ``None``, or a tuple/list/dict of them, converted recursively.
``_items(x, n, what)``
    a tuple or list of exactly ``n`` items, each converted by ``_plain``; returns a tuple.
``_grad(result, leaf, what, index=None, weights=None)``
    the gradient of a student's 0-dimensional tensor ``result`` (or of item ``index`` of a returned
    tuple or list) with respect to ``leaf``, a tensor of the hidden test's own that requires grad,
    as a plain copy; an answer that cannot be differentiated, or that does not reach ``leaf``
    through autograd, raises. ``result`` must be exactly a ``torch.Tensor``, as for ``_tensor``.
    With ``weights`` (a tensor of the test's own, of the result's shape), the gradient of
    ``(weights * result).sum()``: a vector-Jacobian product, for results of any shape.
``_scribble(x, what)``
    writes into a returned tensor in place, as a caller that owns its result may (booleans are
    negated, numbers increased by 1), so that the test can call again and see that no later result
    shares memory with it (a slice of a table kept between calls); a tensor that cannot be written
    in place (a broadcast view made with ``expand``) fails, as the caller's own write would. An exact
    ``list`` gets ``None`` appended to it and to every list nested in it (a list kept between calls
    then shows it at the next call), and fails when one list sits in two places of it.
``_same_object(got, expected, what)``
    ``got`` must be the very object ``expected`` (``is``, which no class can redefine): a caller's
    container still holds the caller's tensors after a call, not an equal copy and not a view of the
    same memory put in their place. Returns ``None``.
``_close(got, expected, what, rtol=..., atol=...)`` and ``_equal(got, expected, what)``
    compare plain tensors (dtype and shape included) with code captured before any student cell.
``_grads_kept(named, what)``
    for ``{name: tensor}`` of the test's own tensors (some holding a ``.grad``): returns a check to run
    after the call, which fails unless each ``.grad`` is still the very tensor it was, with the same
    values, and a tensor that held none still holds none (a caller accumulates gradients there).
``_owned(result, inputs, what)``
    the checks of a result the caller owns, for a part's degenerate sizes (an empty batch, one position): the result
    is none of ``inputs`` (the tests' own list of the tensors passed, as ``is`` tells; an empty tensor handed back is
    seen only this way), ``_scribble``'s write into it lands, and no input changes. Returns the result's plain copy
    from before the write.
``_use_references(**functions)``
    binds the given notebook names to reference functions, so that a part that calls an earlier
    part's function is graded with the reference of that function (each part is graded alone).

Every helper raises ``AssertionError`` with a message that says what was expected. The helpers keep
references to everything they use, taken when the cell runs, so a later cell that rebinds a builtin
or a ``torch`` function does not change them (and the tamper guard flags the attempt).

:func:`hidden_test_problems` is the static rule ``attnlab-course check`` enforces: in the hidden
tests, a value that came out of student code is only ever assigned, called, or passed to a plain-value
helper; never compared, formatted, or handed to other code first.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
import textwrap

from .guard import module_bindings

HELPER_GRADE_ID = "grading_helpers"
HELPER_NAMES = ("_plain", "_tensor", "_number", "_float", "_integer", "_text", "_flag", "_items", "_grad",
                "_scribble", "_same_object", "_owned", "_grads_kept", "_settings_kept", "_dtype_sweep", "_close", "_equal",
                "_use_references")
SANITISERS = frozenset(HELPER_NAMES) - {"_close", "_equal", "_use_references"}


def _attnlab_plain_helpers(namespace):
    import torch

    try:
        import numpy
        numpy_reals = frozenset(t for t in (getattr(numpy, n, None) for n in (
            "float16", "float32", "float64", "longdouble", "int8", "int16", "int32", "int64", "uint8", "uint16",
            "uint32", "uint64")) if t is not None)
    except ImportError:
        numpy_reals = frozenset()
    exact, name_of = type, type.__dict__["__name__"].__get__
    Tensor, Parameter, strided = torch.Tensor, torch.nn.Parameter, torch.strided
    detach, clone, is_meta, layout = Tensor.detach, Tensor.clone, Tensor.is_meta.__get__, Tensor.layout.__get__
    negate_, add_, numel, mul, total, no_grad = Tensor.logical_not_, Tensor.add_, Tensor.numel, torch.mul, torch.sum, torch.no_grad
    bool_dtype = torch.bool
    dtype_of, shape_of, dims_of = Tensor.dtype.__get__, Tensor.shape.__get__, Tensor.dim
    is_inference = Tensor.is_inference
    autograd_grad = torch.autograd.grad
    no_subclass, function_modes = torch._C.DisableTorchFunctionSubclass, torch._C._len_torch_function_stack
    dispatch_modes = getattr(torch._C, "_len_torch_dispatch_stack", lambda: 0)
    # the thread's dispatch keys as they are now, before any student code (red team 27, hostile: a setting an answer
    # left on only while its results lived, such as torch's Python dispatcher, which runs kernels registered from
    # Python, was gone again before any check between cells)
    include_keys, exclude_keys = torch._C._dispatch_tls_local_include_set, torch._C._dispatch_tls_local_exclude_set
    keys_now = (include_keys(), exclude_keys())
    # comparisons made with torch's compiled functions only: `torch.testing.assert_close` is Python, whose module an
    # answer can patch and put back within one call (red team 18, hostile 01: its closure cell was replaced)
    equal, isclose, count_true, isnan, where, to, absolute, subtract, logical_not, select = (
        torch.equal, torch.isclose, torch.count_nonzero, torch.isnan, torch.where, Tensor.to, torch.abs, torch.sub,
        torch.logical_not, torch.select)
    argmax, reshape, item, float64, complex128 = Tensor.argmax, Tensor.reshape, Tensor.item, torch.float64, torch.complex128
    is_complex, bool_dtype_ = Tensor.is_complex, torch.bool
    # torch.testing.assert_close's default tolerances; exact for integers and booleans
    default_tolerances = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5), torch.float32: (1.3e-6, 1e-5),
                          torch.float64: (1e-7, 1e-7), torch.complex64: (1.3e-6, 1e-5), torch.complex128: (1e-7, 1e-7)}
    inf_ = float("inf")
    tuple_, list_, dict_, len_, float_, int_, str_, bool_ = tuple, list, dict, len, float, int, str, bool
    list_append, list_pop, id_ = list.append, list.pop, id
    grad_of = Tensor.grad.__get__
    zip_, range_, items, reversed_, divmod_ = zip, range, dict.items, reversed, divmod

    def kind(x):
        return f"an object of type {name_of(exact(x))}"

    def settled():
        if function_modes() or dispatch_modes():
            raise AssertionError("a torch function or dispatch mode is active, so no value can be checked")
        if include_keys() != keys_now[0] or exclude_keys() != keys_now[1]:
            raise AssertionError("torch's dispatch keys of this thread were changed (its Python dispatcher, autograd or "
                                 "autocast turned on or off by code an answer left), so no value can be checked")

    def dense(x, what):
        settled()
        if exact(x) is not Tensor and exact(x) is not Parameter:
            raise AssertionError(f"{what} must be a torch.Tensor (not a subclass), not {kind(x)}")
        if layout(x) is not strided or is_meta(x):
            raise AssertionError(f"{what} must be an ordinary dense tensor with data")
        # red team 17: made under torch.inference_mode(), it refuses the caller's in-place writes (torch writes,
        # then raises, so _scribble could not tell) and autograd; no part asks for one
        if is_inference(x):
            raise AssertionError(f"{what} is an inference tensor (made under torch.inference_mode()), which the caller "
                                 "can neither change in place nor use in autograd: use torch.no_grad() where no "
                                 "gradient is needed")

    def tensor(x, what="the result", dtype=None, shape=None):
        dense(x, what)
        with no_subclass():
            copy = clone(detach(x))
        if dtype is not None and dtype_of(copy) != dtype:
            raise AssertionError(f"{what} must have dtype {dtype}, not {dtype_of(copy)}")
        if shape is not None and tuple_(shape_of(copy)) != tuple_(shape):
            raise AssertionError(f"{what} must have shape {tuple_(shape)}, not {tuple_(shape_of(copy))}")
        return copy

    def number(x, what="the result"):
        if exact(x) is float_ or exact(x) is int_ or exact(x) in numpy_reals:
            return float_(x)
        raise AssertionError(f"{what} must be a number (an int or a float), not {kind(x)}")

    def strict(expected, label):
        def check(x, what="the result"):
            if exact(x) is not expected:
                raise AssertionError(f"{what} must be a Python {label}, not {kind(x)}")
            return expected(x)
        return check

    def plain(x, what="the result"):
        t = exact(x)
        if t is Tensor or t is Parameter:
            return tensor(x, what)
        if x is None or t is bool_ or t is int_ or t is float_ or t is str_:
            return x
        if t in numpy_reals:
            return number(x, what)
        if t is tuple_ or t is list_:
            return t(plain(item, f"{what}[{i}]") for i, item in zip_(range_(len_(x)), x))
        if t is dict_:
            out = {}
            for key, value in items(x):
                if exact(key) is not str_ and exact(key) is not int_:
                    raise AssertionError(f"the keys of {what} must be str or int, not {kind(key)}")
                out[key] = plain(value, f"{what}[{key!r}]")
            return out
        raise AssertionError(f"{what} must be a tensor, a number, a str, a bool or a tuple of them, not {kind(x)}")

    def pair_of_items(x, n, what="the result"):
        if exact(x) is not tuple_ and exact(x) is not list_:
            raise AssertionError(f"{what} must be a tuple of {n} items, not {kind(x)}")
        if len_(x) != n:
            raise AssertionError(f"{what} must have {n} items, not {len_(x)}")
        return tuple_(plain(x, what))

    def gradient(result, leaf, what="the result", index=None, weights=None):
        settled()
        if index is not None:
            if exact(result) is not tuple_ and exact(result) is not list_:
                raise AssertionError(f"{what} must be a tuple, not {kind(result)}")
            if not 0 <= index < len_(result):
                raise AssertionError(f"{what} must have an item {index}")
            result = result[index]
        if exact(result) is not Tensor:
            raise AssertionError(f"{what} must be a torch.Tensor (not a subclass), not {kind(result)}")
        if weights is not None:
            if tuple_(shape_of(result)) != tuple_(shape_of(weights)):
                raise AssertionError(f"{what} must have shape {tuple_(shape_of(weights))}, not {tuple_(shape_of(result))}")
            with no_subclass():
                result = total(mul(result, weights))
        if dims_of(result) != 0:
            raise AssertionError(f"{what} must be a 0-dimensional tensor")
        try:
            found = autograd_grad(result, leaf, allow_unused=True)[0]
        except RuntimeError:  # its message is not repeated: a student's own backward may have raised it
            raise AssertionError(f"{what} cannot be differentiated: backward() fails on it, so it is not connected "
                                 "to its inputs through autograd (a detour through Python numbers, NumPy, "
                                 ".detach() or torch.no_grad())") from None
        if found is None:
            raise AssertionError(f"{what} does not depend on its input through autograd")
        return tensor(found, f"the gradient of {what}")

    def scribble(x, what="the result"):
        if exact(x) is list_:
            return scribble_lists(x, what)
        dense(x, what)
        if numel(x) == 0:
            return None
        try:
            with no_grad(), no_subclass():
                if dtype_of(x) == bool_dtype:
                    negate_(x)
                else:
                    add_(x, 1)
        except RuntimeError as err:
            # red team 20 (the aliasing student): a broadcast view (`expand`: one element in several places) cannot be
            # written in place, so a result made that way is not the caller's to change, as every notebook says it is
            raise AssertionError(f"{what} cannot be changed in place by its caller ({str_(err).split('.')[0]}): "
                                 "what a function returns belongs to the caller, who may change it in place: return "
                                 "a tensor of its own (a broadcast view made with .expand() needs .clone() or "
                                 ".contiguous())") from None
        return None

    def scribble_lists(x, what):
        # red team 33 (the late-binding student): a list made once and handed out again (a module-level [] returned
        # for an empty input), or rows that are one list ([[]] * n): the caller appends one item to every list of the
        # result, nested lists included, as it may; a list met twice is one list in two places of the result
        seen, nodes, pending = {}, [], [x]
        while len_(pending):
            node = list_pop(pending)
            if id_(node) in seen:
                raise AssertionError(f"{what} holds one list in two places (rows made with [[]] * n, or one list "
                                     "appended twice): a caller that appends to one of them changes the other; "
                                     "make a new list for each")
            seen[id_(node)] = True
            list_append(nodes, node)
            for item in node:  # an exact list: iterating it runs no code of the student's
                if exact(item) is list_:
                    list_append(pending, item)
        for node in nodes:
            list_append(node, None)
        return None

    def grads_kept(named, what):
        # red team 33 (class BB): the .grad each of the test's own tensors holds now; the check returned says, after the
        # call, that each is still that very tensor with the same values, and that a tensor with none still has none
        before = [(name, t, grad_of(t), None if grad_of(t) is None else tensor(grad_of(t), f"the .grad of {name}"))
                  for name, t in items(named)]

        def check():
            for name, t, held, values in before:
                if held is None:
                    if grad_of(t) is not None:
                        raise AssertionError(f"{what}: {name} got a .grad during the call: leave .grad to the caller")
                    continue
                same_object(grad_of(t), held, f"the .grad of {name} after {what} (leave the caller's .grad alone)")
                same(tensor(held, f"the .grad of {name}"), values,
                     f"the .grad of {name} after {what}: leave the caller's .grad alone")
            return None
        return check

    def same_object(got, expected, what="the result"):
        if got is not expected:
            raise AssertionError(f"{what} is not the object the caller put there: another object (a copy, or a "
                                 "view of the same memory) took its place")
        return None

    def plain_tensor(x, what):
        if exact(x) is not Tensor:
            raise AssertionError(f"{what} must be converted with _tensor first")
        return x

    def close(got, expected, what="the result", rtol=None, atol=None):
        got, expected = plain_tensor(got, what), plain_tensor(expected, "the expected value")
        if dtype_of(got) != dtype_of(expected):
            raise AssertionError(f"{what} has dtype {dtype_of(got)}, expected {dtype_of(expected)}")
        if tuple_(shape_of(got)) != tuple_(shape_of(expected)):
            raise AssertionError(f"{what} has shape {tuple_(shape_of(got))}, expected {tuple_(shape_of(expected))}")
        if (rtol is None) != (atol is None):
            raise ValueError("_close takes both rtol and atol, or neither")
        if rtol is None:
            rtol, atol = default_tolerances.get(dtype_of(got), (0.0, 0.0))
        settled()
        with no_subclass():
            # |got - expected| <= atol + rtol * |expected| elementwise; NaN is close to nothing
            far = logical_not(reshape(isclose(got, expected, rtol=rtol, atol=atol), (-1,)))
            wrong = item(count_true(far))
            if not wrong:
                return None
            size = numel(got)
            message = f"{what} is not close to the expected value: {wrong} of {size} elements differ"
            if dtype_of(got) != bool_dtype_:
                wide = complex128 if is_complex(got) else float64
                gap = reshape(absolute(subtract(to(got, wide), to(expected, wide))), (-1,))
                at = item(argmax(where(far, where(isnan(gap), inf_, gap), -1.0)))
                index, rest = [], at
                for n in reversed_(tuple_(shape_of(got))):
                    rest, i = divmod_(rest, n)
                    index.append(i)
                largest = item(select(gap, 0, at))
                message += (f"; the largest difference is {largest:.6g} at index {tuple_(reversed_(index))} "
                            f"(allowed: {atol:g} + {rtol:g} * |expected|)")
            raise AssertionError(message)

    def same(got, expected, what="the result"):
        got, expected = plain_tensor(got, what), plain_tensor(expected, "the expected value")
        settled()
        if dtype_of(got) != dtype_of(expected) or tuple_(shape_of(got)) != tuple_(shape_of(expected)) or not equal(got, expected):
            raise AssertionError(f"{what} differs from the expected value")

    def owned(result, inputs, what="the result"):
        # red team 20 (the early-exit and the aliasing student): a shortcut for a degenerate size that returns an input
        # itself, or a broadcast view of one, has the right values there
        for x in inputs:
            if result is x:
                raise AssertionError(f"{what} is one of the tensors the caller passed in, returned as it is: return a new "
                                     "tensor, also for an empty input or a single position")
        kept = [tensor(x, "an input") for x in inputs]
        before = tensor(result, what)
        scribble(result, what)
        after = tensor(result, f"{what}, after the caller wrote into it")
        if numel(before):
            expected = clone(before)
            scribble(expected, what)  # the same write, on a copy of the result from before it
            same(after, expected, f"{what}, after the caller wrote into it (the result belongs to the caller, who may "
                                  "change it in place: return a new tensor, not an input nor a broadcast view of one)")
        for number in range_(len_(inputs)):
            same(tensor(inputs[number], "an input after the caller wrote into the result"), kept[number],
                 f"input {number} after the caller wrote into {what} (the result must share memory with no input)")
        return before

    # torch's process-wide settings, each as (what it is, read it, set it, a value away from the one found): what the
    # grader checks after every test cell
    C, tensor_str, vars_, exception_ = torch._C, torch._tensor_str, vars, Exception
    get_grad, set_grad, get_dtype, set_dtype = torch.is_grad_enabled, C._set_grad_enabled, torch.get_default_dtype, torch.set_default_dtype
    get_anomaly, get_anomaly_nan, set_anomaly = torch.is_anomaly_enabled, torch.is_anomaly_check_nan_enabled, torch.set_anomaly_enabled
    get_matmul, set_matmul = torch.get_float32_matmul_precision, torch.set_float32_matmul_precision
    get_threads, set_threads, set_flush = torch.get_num_threads, torch.set_num_threads, torch.set_flush_denormal
    full, div, float32 = torch.full, Tensor.div, torch.float32
    printer, print_fields = exact(tensor_str.PRINT_OPTS), ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def flushing():
        # a subnormal float32 quotient comes out 0 only in the flush-denormal mode, which torch offers no way to read
        return float_(div(full((1,), 2e-38, dtype=float32, device="cpu"), 4.0)[0]) == 0.0

    def printing():
        # read from the options object's own dict, and only while it is torch's (an answer may have put another object,
        # or set an option to an object of its own, whose attributes or comparisons would run its code here)
        options = tensor_str.PRINT_OPTS
        if exact(options) is not printer:
            return ("replaced", options)
        found = vars_(options)
        return tuple_(found.get(name) for name in print_fields)

    def set_printing(values):
        options = tensor_str.PRINT_OPTS
        if exact(options) is printer and exact(values) is tuple_ and len_(values) == len_(print_fields):
            vars_(options).update(zip_(print_fields, values))

    def same_setting(a, b):
        # by value for the types torch's settings have (bool, int, float, str, a tuple of them), by identity otherwise
        # (dtypes are singletons; an object of an answer's would answer == itself)
        kind = exact(a)
        if kind is not exact(b):
            return False
        if kind is tuple_:
            return len_(a) == len_(b) and not [x for x, y in zip_(a, b) if not same_setting(x, y)]
        if kind is bool_ or kind is int_ or kind is float_ or kind is str_:
            return a == b
        return a is b

    settings = (
        ("the grad mode (off: called under torch.no_grad())", get_grad, set_grad, lambda found: False),
        ("the default dtype (float64: called after torch.set_default_dtype(torch.float64))", get_dtype, set_dtype,
         lambda found: float64),
        ("anomaly detection (on)", lambda: (get_anomaly(), get_anomaly_nan()), lambda v: set_anomaly(v[0], v[1]),
         lambda found: (True, True)),
        # through torch._C: torch.use_deterministic_algorithms imports torch._inductor (about a second of CPU)
        ("deterministic algorithms (on)", lambda: (C._get_deterministic_algorithms(), C._get_deterministic_algorithms_warn_only()),
         lambda v: C._set_deterministic_algorithms(v[0], warn_only=v[1]), lambda found: (True, False)),
        ("the flush-denormal mode (on)", flushing, set_flush, lambda found: True),
        ("the float32 matmul precision ('medium')", get_matmul, set_matmul, lambda found: "medium"),
        ("the number of threads (torch.set_num_threads)", get_threads, set_threads, lambda found: 2 if found == 1 else 1),
        ("the print options (torch.set_printoptions: precision 7)", printing, set_printing,
         lambda found: (7, 500, 2, 120, True)),
    )

    def settings_kept(function, args=(), kwargs=None, what="the function"):
        # red team 30 (the settings student): a function that changes a setting and then puts back the default rather
        # than what it found (torch.set_grad_enabled(True) at its end, torch.set_default_dtype(torch.float32)) leaves
        # every check between cells content, since the tests call it with the defaults on. Here it is called with
        # every setting away from its default; its result and any error it raises are not looked at, only whether
        # each setting is as it was when the call began
        settled()
        found = [read() for _, read, _, _ in settings]
        unusual = [other(value) for (_, _, _, other), value in zip_(settings, found)]
        try:
            for (_, _, write, _), value in zip_(settings, unusual):
                write(value)
            try:
                function(*args, **(kwargs or {}))
            except exception_:
                pass
            after = [read() for _, read, _, _ in settings]
        finally:
            for (_, _, write, _), value in zip_(settings, found):
                write(value)
        changed = [name for (name, _, _, _), before, now in zip_(settings, unusual, after) if not same_setting(now, before)]
        if changed:
            raise AssertionError(f"{what}, called with torch's settings away from their defaults, left changed: "
                                 f"{'; '.join(changed)}. A function that changes a setting must put back the value it "
                                 "found, not the default: use a `with` block (`with torch.no_grad():`), or read the "
                                 "setting first and restore that value")
        return None

    generator_, randn_ = torch.Generator, torch.randn
    is_float_, version_of, data_of = Tensor.is_floating_point, Tensor._version.__get__, Tensor.data.__get__
    requires_grad_, copy_, set_ = Tensor.requires_grad_, Tensor.copy_, Tensor.set_
    isinstance_, enumerate_, as_int = isinstance, enumerate, strict(int_, "int")

    def dtype_sweep(function, name, build, make, reference, outs, dtypes, grads=None, labels=(), same_objects=None,
                    seed=3030):
        # round 30's class sweep (tests/redteam/round30/BRIEF-SWEEP.md), three classes, for any function:
        # AJ (an input written in place with the values it held: a clamp_, nan_to_num_ or &= that changes nothing still
        #   moves the caller's version counter, after which a backward pass through a graph that saved it fails): every
        #   tensor argument's _version read before and after the call, in every dtype of `dtypes` ({dtype: tolerance});
        # AK (the gradient path cut for half precision only): gradients for the dtypes of `grads`, with respect to every
        #   argument of `labels` (a label, or (label, indexes of the results it reaches)), against float64 ones of the
        #   same values;
        # AL (a converted copy of an input kept per id(), which is the input itself for float64 ones): the same objects
        #   of the dtypes of `same_objects`, called again after new values were written through .data and after set_.
        # make(generator, dtype) -> {label: tensor}; function(*build({label: tensor})) is the call; reference({label:
        # float64 values}) -> a list of float64 results; outs(dtype) -> [(shape, dtype) of each result]; one result is
        # returned alone, several as a tuple. `name` names the function in messages
        g = generator_()
        g.manual_seed(seed)

        def results(result, what, dtype):
            spec = outs(dtype)
            got = pair_of_items(result, len_(spec), what) if len_(spec) > 1 else [result]
            return [tensor(item_, f"{what}, result {i}", dtype=kind_, shape=shape)
                    for i, (item_, (shape, kind_)) in enumerate_(zip_(got, spec))]

        def wide(values):
            return {label: (to(value, float64) if is_float_(value) else clone(value)) for label, value in items(values)}

        def compare(got, values, what, allowed):
            want = reference(wide(values))
            for i, got_i in enumerate_(got):
                if is_float_(got_i):
                    close(to(got_i, float64), want[i], f"{what}, result {i}", rtol=allowed, atol=allowed)
                else:
                    same(got_i, want[i], f"{what}, result {i}")

        for dtype, allowed in items(dtypes):
            values = make(g, dtype)
            args = {label: clone(value) for label, value in items(values)}
            before = {label: as_int(version_of(t), f"the version counter of {label}") for label, t in items(args)}
            what = f"{name} for {dtype} inputs (version counters read before and after the call)"
            got = results(plain(function(*build(args)), what), what, dtype)
            for label, t in items(args):
                if as_int(version_of(t), f"the version counter of {label} after the call") != before[label]:
                    raise AssertionError(
                        f"{what} wrote into {label}, even if only values it already held (its version counter moved: a "
                        "caller whose autograd graph saved it can no longer run backward): leave the tensors you are "
                        "given as they are")
            compare(got, values, what, allowed)

        for dtype, allowed in items(grads or {}):
            values = make(g, dtype)
            for label in labels:
                label, which = label if isinstance_(label, tuple_) else (label, range_(len_(outs(dtype))))
                for i in which:
                    w = randn_(*outs(dtype)[i][0], generator=g, dtype=float64)
                    leaf = requires_grad_(clone(values[label]), True)
                    args = {**{other: clone(value) for other, value in items(values)}, label: clone(leaf)}
                    what = f"the gradient of {name}'s result {i} with respect to {label} for {dtype} inputs"
                    got = gradient(function(*build(args)), leaf, what, index=i if len_(outs(dtype)) > 1 else None,
                                   weights=w)
                    own = requires_grad_(to(values[label], float64), True)
                    expected = gradient(reference({**wide(values), label: own})[i], own,
                                        f"the float64 gradient expected of {what}", weights=w)
                    close(to(got, float64), expected, f"{what} (gradients must flow through the result in every "
                          "dtype: no torch.no_grad() and no .detach() for half-precision inputs alone)",
                          rtol=allowed, atol=allowed)

        for dtype, allowed in items(same_objects or {}):
            objs = make(g, dtype)
            for turn in range_(3):
                if turn:
                    new = make(g, dtype)
                    for label, obj in items(objs):
                        if turn == 1:
                            copy_(data_of(obj), new[label])  # through .data: the version counters stay where they were
                        else:
                            set_(obj, clone(new[label]))  # new memory for the same objects (as `param.data = new` does)
                values = {label: clone(value) for label, value in items(objs)}
                what = (f"{name} called again (call {turn + 1}) on the same {dtype} objects after their values changed "
                        "in place (keep nothing between calls keyed on id(), not even a converted copy)")
                compare(results(plain(function(*build(objs)), what), what, dtype), values, what, allowed)
        return None

    def use_references(**functions):
        for name, function in items(functions):
            namespace[name] = function

    helpers = {"_plain": plain, "_tensor": tensor, "_number": number, "_float": strict(float_, "float"),
               "_integer": as_int, "_text": strict(str_, "str"), "_flag": strict(bool_, "bool"),
               "_items": pair_of_items, "_grad": gradient, "_scribble": scribble, "_same_object": same_object, "_owned": owned,
               "_grads_kept": grads_kept, "_settings_kept": settings_kept, "_dtype_sweep": dtype_sweep, "_close": close, "_equal": same, "_use_references": use_references}
    return tuple_(helpers[name] for name in ("_plain", "_tensor", "_number", "_float", "_integer", "_text", "_flag",
                                             "_items", "_grad", "_scribble", "_same_object", "_owned", "_grads_kept",
                                             "_settings_kept",
                                             "_dtype_sweep", "_close", "_equal", "_use_references"))


CELL_HEADER = """\
# Grading helpers. Hidden tests turn what your code returns into plain values with these before they
# compare anything: return exact torch.Tensor, float, int, str or bool values (not subclasses, and no
# tensor made under torch.inference_mode(): use torch.no_grad() where no gradient is needed).
# Generated from attnlab/instructor/plain.py by `attnlab-course generate`: do not edit this cell.
"""


def cell_source() -> str:
    """The source of the ``grading_helpers`` cell."""
    body = textwrap.dedent(inspect.getsource(_attnlab_plain_helpers))
    names = ", ".join(HELPER_NAMES)
    return f"{CELL_HEADER}{body}\n{names} = _attnlab_plain_helpers(globals())\ndel _attnlab_plain_helpers\n"


def helper_cell() -> dict:
    return {
        "cell_type": "code", "execution_count": None, "id": HELPER_GRADE_ID, "outputs": [],
        "metadata": {"nbgrader": {"grade": False, "grade_id": HELPER_GRADE_ID, "locked": True,
                                  "schema_version": 3, "solution": False, "task": False}, "editable": False,
                     "deletable": False},
        "source": cell_source().splitlines(keepends=True),
    }


def sync_helper_cell(nb: dict) -> bool:
    """Put the current ``grading_helpers`` cell into a source notebook (after its first code cell);
    returns True if the notebook changed."""
    fresh = helper_cell()
    for i, cell in enumerate(nb["cells"]):
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == HELPER_GRADE_ID:
            if "".join(cell["source"]) == cell_source() and cell["metadata"] == fresh["metadata"]:
                return False
            nb["cells"][i] = fresh
            return True
    first_code = next((i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"), len(nb["cells"]) - 1)
    nb["cells"].insert(first_code + 1, fresh)
    return True


# --------------------------------------------------------------------------- the static rule

HIDDEN_BEGIN, HIDDEN_END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"


# what the hidden tests may call the globals they bind (red team 15: hidden helpers named `_beam`, `_ngrams` and
# `_check`, names an honest student gives private helpers, flagged that student's notebook for review)
HIDDEN_PREFIXES = ("_check_", "_ref_", "_hidden_")


def _hidden_globals(tree: ast.Module, hidden: set[int]) -> list[str]:
    """The names the cell's hidden lines bind in the notebook's namespace (at the top level, in its blocks, or
    declared ``global`` in a function)."""
    return list(dict.fromkeys(name for name, node in module_bindings(tree) if getattr(node, "lineno", None) in hidden))


def _hidden_lines(source: str) -> set[int]:
    hidden, inside = set(), False
    for number, line in enumerate(source.splitlines(), start=1):
        if line.strip() == HIDDEN_BEGIN:
            inside = True
        elif line.strip() == HIDDEN_END:
            inside = False
        elif inside:
            hidden.add(number)
    return hidden


def _student_names(nb: dict) -> set[str]:
    names = set()
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and cell["metadata"].get("nbgrader", {}).get("solution"):
            try:
                tree = ast.parse("".join(cell["source"]))
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(node.name)
                for target in ast.walk(node) if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) else ():
                    if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store):
                        names.add(target.id)
    return names


class _Taint(ast.NodeVisitor):
    """Follows values that came out of student code through one test cell's statements."""

    def __init__(self, tainted: set[str], hidden: set[int], cell: str):
        self.tainted, self.hidden, self.cell, self.problems = set(tainted), hidden, cell, []

    # -- expressions: returns whether the value may come from student code
    def dirty(self, node) -> bool:
        if node is None:
            return False
        if isinstance(node, ast.Name):
            return node.id in self.tainted
        if isinstance(node, ast.Call):
            callee = node.func
            args = [*node.args, *(k.value for k in node.keywords)]
            if isinstance(callee, ast.Name) and callee.id in SANITISERS:
                # _same_object compares two objects by identity (`is`, which no object can answer for itself):
                # both may come from student code, as a module's parameters before and after its call do; _owned reads
                # its inputs only by identity and through _tensor
                compared = 2 if callee.id in ("_same_object", "_owned") else 1
                for arg in args[:compared]:
                    self.dirty(arg)  # follows what a student call inside does to its arguments
                for arg in args[compared:]:
                    self.use(arg, "passed to a helper")
                return False
            if isinstance(callee, ast.Name) and callee.id == "_use_references":
                for kw in node.keywords:
                    self.use(kw.value, "used as a reference")
                return False
            callee_dirty = self.dirty(callee)
            if callee_dirty:  # calling student code: anything may be passed, the result is the student's
                for arg in args:
                    self.dirty(arg)
                for arg in args:
                    if isinstance(arg, ast.Starred):
                        arg = arg.value
                    if isinstance(arg, ast.Name):
                        self.tainted.add(arg.id)  # the student function may have changed it
                return True
            for arg in args:
                self.use(arg, f"passed to {ast.unparse(callee)}")
            return False
        if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
            dirty = self.dirty(node.value)
            if isinstance(node, ast.Subscript):
                self.use(node.slice, "used as an index")
            return dirty
        if isinstance(node, ast.Lambda):
            self.function(node.args, [ast.Return(node.body)])
            return False
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            saved = set(self.tainted)
            for gen in node.generators:
                if self.dirty(gen.iter):
                    self.bind(gen.target)
                for cond in gen.ifs:
                    self.use(cond, "used in a condition")
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            dirty = any([self.dirty(p) for p in parts])
            self.tainted = saved
            return dirty
        if isinstance(node, (ast.Tuple, ast.List)):
            return any([self.dirty(e) for e in node.elts])
        # every other expression (comparisons, arithmetic, f-strings, boolean logic ...) computes with
        # its operands: none of them may come from student code
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.use(child, "used in an expression")
        return False

    def use(self, node, how):
        if self.dirty(node) and getattr(node, "lineno", 0) in self.hidden:
            self.problems.append(
                f"{self.cell}, line {node.lineno}: `{ast.unparse(node)}` comes from student code and is {how} "
                "without a plain-value helper (_tensor, _number, _text, _items ...)")

    def bind(self, target, dirty=True):
        if isinstance(target, ast.Name):
            (self.tainted.add if dirty else self.tainted.discard)(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for e in target.elts:
                self.bind(e, dirty)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, dirty)
        else:  # obj.attr = ..., obj[i] = ...
            self.use(target.value, "changed")
            if isinstance(target, ast.Subscript):
                self.use(target.slice, "used as an index")

    def function(self, args, body):
        saved = set(self.tainted)
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if a is not None:
                self.tainted.discard(a.arg)
        for default in [*args.defaults, *args.kw_defaults]:
            if default is not None:
                self.use(default, "used as a default")
        self.statements(body)
        self.tainted = saved

    # -- statements
    def statements(self, body):
        for stmt in body:
            self.statement(stmt)

    def statement(self, s):
        if isinstance(s, ast.Assign):
            dirty = self.dirty(s.value)
            for t in s.targets:
                self.bind(t, dirty)
        elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
            if isinstance(s, ast.AugAssign):
                if isinstance(s.target, ast.Name):
                    self.use(s.target, "changed")
                self.use(s.value, "used in an expression")
            elif s.value is not None:
                self.bind(s.target, self.dirty(s.value))
        elif isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Call):
                self.dirty(s.value)
            else:
                self.use(s.value, "used in an expression")
        elif isinstance(s, ast.Assert):
            self.use(s.test, "asserted")
            self.use(s.msg, "formatted into a message")
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            self.bind(s.target, self.dirty(s.iter))
            self.statements(s.body)
            self.statements(s.orelse)
        elif isinstance(s, (ast.While, ast.If)):
            self.use(s.test, "used in a condition")
            self.statements(s.body)
            self.statements(s.orelse)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                dirty = self.dirty(item.context_expr)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, dirty)
            self.statements(s.body)
        elif isinstance(s, ast.Try):
            self.statements(s.body)
            for handler in s.handlers:
                if handler.type is not None:
                    self.use(handler.type, "used as an exception type")
                if handler.name:
                    self.tainted.add(handler.name)  # an exception raised by student code is the student's
                self.statements(handler.body)
            self.statements(s.orelse)
            self.statements(s.finalbody)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in s.decorator_list:
                self.use(d, "used as a decorator")
            self.function(s.args, s.body)
            self.tainted.discard(s.name)
        elif isinstance(s, ast.Return):
            self.use(s.value, "returned from a test helper")
        elif isinstance(s, ast.Raise):
            self.use(s.exc, "raised")
        elif isinstance(s, ast.Delete):
            for t in s.targets:
                if isinstance(t, ast.Name):
                    self.tainted.discard(t.id)
        elif isinstance(s, ast.ClassDef):
            self.statements(s.body)
        # import, pass, break, continue, global: nothing flows


def hidden_test_problems(nb: dict) -> list[str]:
    """Where the hidden tests of a source notebook let a student's value into a comparison unconverted.

    Empty when every value that comes out of student code (a student function's result, a student
    variable, an object a student function received) reaches comparisons only through the helpers.
    Also reports a missing or stale ``grading_helpers`` cell."""
    problems = []
    cells = nb["cells"]
    helper = [c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == HELPER_GRADE_ID]
    if not helper:
        problems.append(f"no `{HELPER_GRADE_ID}` cell: run `attnlab-course generate`")
    elif "".join(helper[0]["source"]) != cell_source():
        problems.append(f"the `{HELPER_GRADE_ID}` cell is stale: run `attnlab-course generate`")
    student = _student_names(nb)
    for cell in cells:
        meta = cell["metadata"].get("nbgrader", {})
        if cell["cell_type"] != "code" or not meta.get("grade") or meta.get("solution"):
            continue
        source = "".join(cell["source"])
        hidden = _hidden_lines(source)
        if not hidden:
            continue
        try:
            tree = ast.parse(source)
        except SyntaxError as err:
            problems.append(f"{meta.get('grade_id')}: does not parse ({err})")
            continue
        for name in _hidden_globals(tree, hidden):
            if not name.startswith(HIDDEN_PREFIXES):
                problems.append(f"{meta.get('grade_id')}: its hidden tests bind the global {name}, a name a student's "
                                f"own helper may have (the tamper guard would refuse that helper, or the test would "
                                f"replace it): start it with one of {', '.join(HIDDEN_PREFIXES)}")
        walker = _Taint(student, hidden, meta.get("grade_id", "?"))
        walker.statements(tree.body)
        problems += walker.problems
        if not any(callee in SANITISERS for callee in _callees(source, tree)):
            problems.append(f"{meta.get('grade_id')}: its hidden tests convert no student value with a helper")
    return problems


def _callees(source: str, tree: ast.AST) -> list[str]:
    """The source text of every call in ``tree`` up to its first "(", stripped: what
    ``ast.get_source_segment(source, call).split("(")[0].strip()`` gives, with the source split into lines once (that
    function splits the whole source again for every call: seconds for a chapter's tests)."""
    # lines as the ast module counts them: ended by \r\n, \r or \n only
    lines = [line.encode("utf-8") for line in re.findall(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+\Z", source)]
    callees = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            row = node.lineno - 1
            text = lines[row][node.col_offset:].decode("utf-8")
            while "(" not in text and row + 1 < len(lines):
                row += 1
                text += lines[row].decode("utf-8")
            callees.append(text.split("(")[0].strip())
    return callees


def notebook_problems(path) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return hidden_test_problems(json.load(f))
