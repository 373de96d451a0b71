"""`torch.jit.trace` / `torch.jit.script` in torchshim: XLA programs traced from the Python code.

- `trace(fn_or_module, example_inputs)` runs the code once on the example inputs (eagerly, as PyTorch's
  tracer does: errors and side effects happen then, `torch.jit.is_tracing()` is True) and builds a program
  (`_program.Program`, mode 'trace'): tensor-to-Python conversions are frozen on the example inputs with
  PyTorch's TracerWarning, so Python control flow follows the example inputs on every call. Calls with other
  shapes compile another program with the same frozen control flow.
- `script(fn_or_module)` has no TorchScript compiler behind it: the code is traced per input signature on its
  first call with that signature (mode 'script'). Python control flow on shapes, dtypes, Python arguments
  and `training` is specialised per signature; a conversion of a traced tensor to a Python value (data-
  dependent control flow) makes that signature run eagerly (one warning), so results always follow Python.

A module becomes a view of itself (`TopLevelTracedModule` / `RecursiveScriptModule` + its own class) sharing
its parameters, buffers and submodules: parameters and buffers are inputs of the program, read at each call.
`.graph` is the program's jaxpr, `.code` the same as Python-like text; `save` writes a `jax.export` artifact
(`_archive.py`). docs/compile.md, section "torch.jit".
"""
import copy
import difflib
import functools
import inspect
import warnings

import jax
import numpy as np

from ..nn.modules.module import Module
from . import _host
from ._host import TracerWarning
from ._program import Program, check_output, template
from ._show import Graph, python_code

__all__ = ["script", "trace", "trace_module", "ScriptModule", "RecursiveScriptModule", "TracedModule",
           "TopLevelTracedModule", "ScriptFunction", "TracerWarning", "TracingCheckError", "is_tracing",
           "is_scripting", "NOT_SUPPORTED"]

NOT_SUPPORTED = ("torchshim has no TorchScript compiler: {what} is not available (torch.jit builds XLA "
                 "programs by tracing; see docs/compile.md, section \"torch.jit\").")
_tracing = [0]
_scripting = [0]


class TracingCheckError(Exception):
    """`torch.jit.TracingCheckError(graph_diff_error, tensor_compare_error, extra_msg=None)`."""

    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None):
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        if graph_diff_error is not None:
            self.message += "ERROR: Graphs differed across invocations!\n"
            self.message += "\n".join("\t" + line for line in graph_diff_error.splitlines()) + "\n"
        if tensor_compare_error is not None:
            self.message += ("ERROR: Tensor-valued Constant nodes differed in value across invocations. This "
                             "often indicates that the tracer has encountered untraceable code.\n")
            self.message += "\n".join("\t" + line for line in tensor_compare_error.splitlines()) + "\n"
        super().__init__(self.message)


def is_tracing():
    """`torch.jit.is_tracing() -> bool`: True while `torch.jit.trace` runs or traces the traced code."""
    return _tracing[0] > 0


def is_scripting():
    """`torch.jit.is_scripting() -> bool`: True while a scripted function or module runs (its trace, its
    program's build, or its eager fallback); False elsewhere."""
    return _scripting[0] > 0


def _no_ir(what):
    raise NotImplementedError(NOT_SUPPORTED.format(what=what))


class _Counter:
    def __init__(self, counter):
        self.counter = counter

    def __enter__(self):
        self.counter[0] += 1

    def __exit__(self, *exc):
        self.counter[0] -= 1
        return False


# ---- showing and saving a program --------------------------------------------------------------------------
class _Shown:
    """`.graph`, `.code`, `.inlined_graph`, `.save` of an object with a `_jit_program`."""

    def _jit_entry(self):
        prog = self._jit_program
        if getattr(prog, "example", None) is not None:
            return prog.example
        if prog.last is None:
            raise RuntimeError(f"torch.jit.script (torchshim): {prog.name} has no program yet: a scripted "
                               "callable is compiled by tracing its first call; call it once (or use "
                               "torch.jit.trace) before reading .graph/.code or saving it.")
        entry = prog.last[1]
        return entry

    @property
    def graph(self):
        """The program's jaxpr (a `Graph`; `str()` gives the text)."""
        e = self._jit_entry()
        return Graph(e.jaxpr if e.jaxpr is not None else e.text)

    @property
    def inlined_graph(self):
        return self.graph

    @property
    def code(self):
        """The program as Python-like text (one XLA primitive per line)."""
        e = self._jit_entry()
        if e.jaxpr is None:  # a loaded program: its StableHLO text
            return e.text
        names = ["self." + n for n in e.meta_in["names"]]
        names += [f"input_{k}" if k else "input" for k in range(len(e.meta_in["in_meta"]))]
        names += ["rng_key", "rng_count"]
        fn_name = "forward" if self._jit_program.module is not None else self._jit_program.name
        return python_code(e.jaxpr, fn_name, names)

    def save(self, f, **kwargs):
        """`.save(f, _extra_files={})`: `torch.jit.save(self, f)` (a torchshim program archive)."""
        from ._archive import save_program
        save_program(self, f, kwargs.get("_extra_files"))


class ScriptFunction(_Shown):
    """`torch.jit.ScriptFunction`: a traced or scripted function; calling it runs its XLA program."""

    def __init__(self, fn, program=None):
        self._fn = fn
        functools.update_wrapper(self, fn)
        self.__name__ = getattr(fn, "__name__", "ScriptFunction")
        self._jit_program = program

    @property
    def name(self):
        return self.__name__

    @property
    def qualified_name(self):
        return f"__torch__.{self.__name__}"

    def __call__(self, *args, **kwargs):
        if self._jit_program is None:
            return self._fn(*args, **kwargs)
        if self._jit_program.mode == "script":
            with _Counter(_scripting):
                return self._jit_program(*args, **kwargs)
        return self._jit_program(*args, **kwargs)

    def __repr__(self):
        return f"<torch.jit.ScriptFunction object at {hex(id(self))}>"


class ScriptModule(_Shown, Module):
    """`torch.jit.ScriptModule`: base of scripted, traced and loaded modules. Calling one runs its program;
    a direct subclass (PyTorch's legacy `class M(torch.jit.ScriptModule)`) is scripted on first call."""

    def __call__(self, *args, **kwargs):
        prog = self.__dict__.get("_jit_program")
        if prog is None:
            prog = self.__dict__["_jit_program"] = _script_program(self)
        if prog.mode == "script":
            with _Counter(_scripting):
                return prog(*args, **kwargs)
        return prog(*args, **kwargs)


class RecursiveScriptModule(ScriptModule):
    """`torch.jit.RecursiveScriptModule`: what `torch.jit.script(module)` and `torch.jit.load` return."""


class TracedModule(ScriptModule):
    """`torch.jit.TracedModule`."""


class TopLevelTracedModule(TracedModule):
    """`torch.jit.TopLevelTracedModule`: what `torch.jit.trace(module, ...)` returns."""


_VIEW_CLASSES = {}


def _module_view(mod, kind):
    """A shallow copy of `mod` whose class is `kind` + type(mod): same parameters, buffers, submodules."""
    cls = type(mod)
    key = (kind, cls)
    if key not in _VIEW_CLASSES:
        _VIEW_CLASSES[key] = type(kind.__name__, (kind, cls), {"__module__": kind.__module__})
    view = copy.copy(mod)
    view.__class__ = _VIEW_CLASSES[key]
    view.__dict__["original_name"] = cls.__name__
    view.__dict__.pop("_jit_program", None)
    return view


def _warn_eager(name):
    sites = set()

    def on_eager(reason):
        if reason in sites:
            return
        sites.add(reason)
        warnings.warn(f"torch.jit.script (torchshim): {name}: {reason}; scripted code is compiled "
                      f"by tracing, "
                      "so calls with this input signature run eagerly (same results, no program).",
                      UserWarning, stacklevel=4)
    return on_eager


def _script_program(view):
    name = view.__dict__.get("original_name") or type(view).__name__
    prog = Program(functools.partial(Module.__call__, view), view, name, "script")
    prog.on_eager = _warn_eager(name)
    return prog


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """`torch.jit.script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None)`: a function ->
    ScriptFunction, a Module -> RecursiveScriptModule sharing its state; both compile one XLA program per
    input signature by tracing (see the module docstring). Classes raise (no TorchScript classes).
    `example_inputs` (a list of argument tuples) compiles those signatures at once."""
    warnings.warn("`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  DeprecationWarning, stacklevel=2)
    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(obj, Module):
        out = _module_view(obj, RecursiveScriptModule)
        out.__dict__["_jit_program"] = prog = _script_program(out)
    elif inspect.isclass(obj):
        if obj.__module__ == "builtins":
            raise RuntimeError("TorchScript classes must be new-style classes. Please inherit from 'object'.")
        _no_ir("torch.jit.script on a class (TorchScript classes)")
    elif callable(obj):
        name = getattr(obj, "__name__", "fn")
        prog = Program(obj, None, name, "script")
        prog.on_eager = _warn_eager(name)
        out = ScriptFunction(obj, prog)
    else:
        raise TypeError(f"{type(obj)} is a built-in class")
    for example in example_inputs or ():
        with _Counter(_scripting):
            prog.entry_for(_as_tuple(example), {})
    return out


def _as_tuple(example_inputs):
    from .. import _api
    if isinstance(example_inputs, _api.Tensor):
        return (example_inputs,)
    return tuple(example_inputs) if isinstance(example_inputs, (tuple, list)) else (example_inputs,)


def _record(fn, args, kwargs):
    """The trace run: `fn` eagerly on the inputs, conversions recorded; returns (recorded values, result)."""
    with _Counter(_tracing), _host.recording() as rec:
        res = fn(*args, **kwargs)
    return rec.values, res


def _build_traced(prog, args, kwargs, warn):
    key, tmpl, ins, names, state = prog._signature(args, kwargs)
    try:
        with _Counter(_tracing):
            return prog.build(key, tmpl, ins, names, state, warn=warn)
    except RuntimeError as e:
        if "converts tensors to Python values" in str(e):
            raise
        raise RuntimeError(f"torch.jit.trace (torchshim): {prog.name} could not be traced into one "
                           f"XLA program "
                           f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}). Code whose "
                           "shapes depend on tensor values (nonzero, boolean masks) cannot be traced; run it "
                           "eagerly or with torch.compile.") from e
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
            jax.errors.TracerIntegerConversionError, jax.errors.NonConcreteBooleanIndexError) as e:
        raise RuntimeError(f"torch.jit.trace (torchshim): {prog.name} could not be traced into one "
                           f"XLA program "
                           f"({type(e).__name__}): a value that depends on the inputs is needed on the host. "
                           "Code whose shapes depend on tensor values (nonzero, boolean masks) cannot be "
                           "traced; run it eagerly or with torch.compile.") from e


_TOL = {"float64": (1e-7, 1e-7), "complex128": (1e-7, 1e-7), "float32": (1.3e-6, 1e-5),
        "complex64": (1.3e-6, 1e-5), "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5)}


def _check(prog, fn, examples, given, tolerance):
    """`check_trace`: PyTorch's checks — a retrace on each check input must give the same program (else
    TracingCheckError), and the traced outputs must equal the Python function's (else a TracerWarning)."""
    from .. import _api
    from ..testing import assert_close
    entry = prog.example
    if entry.meta["draws"]:
        warnings.warn("Trace had nondeterministic nodes. Did you forget call .eval() on your model? "
                      "Nodes:\n\t"
                      f"{entry.meta['draws']} random draw(s) from the default generator in the program\nThis "
                      "may cause errors in trace checking. To disable trace checking, pass check_trace=False "
                      "to torch.jit.trace()", TracerWarning, stacklevel=3)
    for args, kwargs in examples:
        if given:
            host, _ = _record(fn, args, kwargs)
            key, tmpl, ins, names, state = prog._signature(args, kwargs)
            frozen = prog.cache.get(key) or _build_traced(prog, args, kwargs, False)
            with _Counter(_tracing):
                fresh_entry = prog.build(key, tmpl, ins, names, state, host=host)
            a, b = str(frozen.jaxpr), str(fresh_entry.jaxpr)
            if a != b:
                diff = "\n".join(difflib.ndiff(a.splitlines(), b.splitlines()))
                raise TracingCheckError("Graph diff:\n" + diff, None)
            for c1, c2 in zip(frozen.jaxpr.consts, fresh_entry.jaxpr.consts):
                if np.shape(c1) != np.shape(c2) or not np.array_equal(np.asarray(c1), np.asarray(c2)):
                    raise TracingCheckError(None, "A constant of the program differs between the traces.")
        traced = []
        template(prog(*args, **kwargs), traced)
        with _api.no_grad():
            expected = []
            template(fn(*args, **kwargs), expected)
        for i, (x, y) in enumerate(zip(traced, expected)):
            rtol, atol = _TOL.get(x.dtype.__repr__().split(".")[-1], (0.0, 0.0))
            try:
                assert_close(x.detach().double() if x.dtype.is_floating_point else x.detach(),
                             y.detach().double() if y.dtype.is_floating_point else y.detach(),
                             rtol=tolerance if rtol else 0.0, atol=atol, equal_nan=True, check_dtype=False)
            except AssertionError as e:
                warnings.warn(f"Output nr {i + 1}. of the traced function does not match the corresponding "
                              f"output of the Python function. Detailed error:\n{e}", TracerWarning,
                              stacklevel=3)


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """`torch.jit.trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
    check_tolerance=1e-5, strict=True, ..., example_kwarg_inputs=None)`: runs `func` once on the example
    inputs and returns a ScriptFunction (function) or TopLevelTracedModule (module) whose calls run the XLA
    program of that trace (see the module docstring; parameters and buffers are program inputs, not
    constants). `check_trace` compares the program with the Python code as PyTorch does. Differences: the
    program's graph is a jaxpr; calls with other shapes compile another program (control flow stays frozen on
    the example inputs); the result's grad_fn is one `CompiledFunctionBackward` node."""
    warnings.warn("`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  DeprecationWarning, stacklevel=2)
    if isinstance(func, (ScriptModule, ScriptFunction)):
        warnings.warn("The input to trace is already a ScriptModule, tracing it is a no-op. Returning the "
                      "object as is.", stacklevel=2)
        return func
    if not callable(func) or inspect.isclass(func):
        raise RuntimeError("Could not get name of python class object")
    is_module = isinstance(func, Module)
    if example_inputs is None and example_kwarg_inputs is None:
        if is_module:
            raise RuntimeError("example_kwarg_inputs should be a dict")
        raise RuntimeError("example_kwarg_inputs or example_inputs must be provided")
    if example_kwarg_inputs is not None and not isinstance(example_kwarg_inputs, dict):
        raise RuntimeError("example_kwarg_inputs should be a dict")
    args = () if example_inputs is None else _as_tuple(example_inputs)
    kwargs = dict(example_kwarg_inputs or {})
    if is_module:
        _warn_trace_method()
        out = _module_view(func, TopLevelTracedModule)
        fn, module, name = functools.partial(Module.__call__, out), out, type(func).__name__
    else:
        fn, module, name = func, None, getattr(func, "__name__", "fn")
    host, res = _record(fn, args, kwargs)
    check_output(template(res, []), strict)
    del res
    prog = Program(fn, module, name, "trace", host)
    prog.example = _build_traced(prog, args, kwargs, warn=True)
    if is_module:
        out.__dict__["_jit_program"] = prog
    else:
        out = ScriptFunction(func, prog)
    if check_trace:
        given = check_inputs is not None
        examples = [(_as_tuple(c), {}) for c in check_inputs] if given else [(args, kwargs)]
        _check(prog, fn, examples, given, check_tolerance)
    return out


def _warn_trace_method():
    warnings.warn("`torch.jit.trace_method` is deprecated. Please switch to `torch.compile` or "
                  "`torch.export`.",
                  DeprecationWarning, stacklevel=3)


def trace_module(mod, inputs, **kwargs):
    """`torch.jit.trace_module(mod, inputs: dict[method name, example inputs], ...)`: each method is run once
    on its inputs; 'forward' becomes the traced program (as `trace(mod, inputs['forward'])`); other methods
    run eagerly on the returned module (torchshim traces only forward)."""
    _warn_trace_method()
    if not isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    out = _module_view(mod, TopLevelTracedModule)
    for name, example in inputs.items():
        if name == "forward":
            fn = functools.partial(Module.__call__, out)
            host, res = _record(fn, _as_tuple(example), {})
            check_output(template(res, []), kwargs.get("strict", True))
            prog = Program(fn, out, type(mod).__name__, "trace", host)
            prog.example = _build_traced(prog, _as_tuple(example), {}, warn=True)
            out.__dict__["_jit_program"] = prog
        else:
            with _Counter(_tracing):
                getattr(mod, name)(*_as_tuple(example))
    if "_jit_program" not in out.__dict__:
        out.__dict__["_jit_program"] = _script_program(out)
    return out

