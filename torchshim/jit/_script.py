"""`torch.jit.script` / `trace` in torchshim: no TorchScript compiler. Both return an object that runs the
same computation eagerly (through torchshim's ops): a function becomes a `ScriptFunction` wrapper, a module a
`RecursiveScriptModule` / `TopLevelTracedModule` view sharing the module's parameters, buffers and
submodules (state_dict keys unchanged). `trace` runs the function once on the example inputs, as PyTorch's
tracer does (errors surface at trace time; `torch.jit.is_tracing()` is True during that run). What needs the
TorchScript IR (`.graph`, `.code`, `save`, `torch.jit.load`) raises NotImplementedError (issue
"torch.compile/jit"). docs/differences.md: "torch.jit"."""
import copy
import functools
import inspect
import warnings

from ..nn.modules.module import Module

__all__ = ["script", "trace", "trace_module", "ScriptModule", "RecursiveScriptModule", "TopLevelTracedModule",
           "ScriptFunction", "TracerWarning", "is_tracing", "NOT_SUPPORTED"]

NOT_SUPPORTED = ("torchshim has no TorchScript compiler: {what} is not available (scripted and traced "
                 "objects "
                 "run eagerly). See the issue \"torch.compile/jit\" and docs/differences.md.")
_tracing = [0]


class TracerWarning(Warning):
    """`torch.jit.TracerWarning`."""


def is_tracing():
    """`torch.jit.is_tracing() -> bool`: True while `torch.jit.trace` runs the traced function."""
    return _tracing[0] > 0


def _no_ir(what):
    raise NotImplementedError(NOT_SUPPORTED.format(what=what))


class ScriptFunction:
    """`torch.jit.ScriptFunction`: here a wrapper calling the Python function eagerly."""

    def __init__(self, fn):
        self._fn = fn
        functools.update_wrapper(self, fn)
        self.__name__ = getattr(fn, "__name__", "ScriptFunction")

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    @property
    def graph(self):
        _no_ir("ScriptFunction.graph")

    @property
    def code(self):
        _no_ir("ScriptFunction.code")

    def save(self, *args, **kwargs):
        _no_ir("ScriptFunction.save")

    def __repr__(self):
        return f"<torchshim.jit.ScriptFunction {self.__name__} (runs eagerly)>"


class ScriptModule(Module):
    """`torch.jit.ScriptModule`: base of scripted and traced modules (here: eager modules)."""

    @property
    def graph(self):
        _no_ir("ScriptModule.graph")

    @property
    def inlined_graph(self):
        _no_ir("ScriptModule.inlined_graph")

    @property
    def code(self):
        _no_ir("ScriptModule.code")

    def save(self, f, **kwargs):
        """`ScriptModule.save(f)`: not available (no TorchScript archive); NotImplementedError."""
        _no_ir("ScriptModule.save")


class RecursiveScriptModule(ScriptModule):
    """`torch.jit.RecursiveScriptModule`: what `torch.jit.script(module)` returns."""


class TopLevelTracedModule(ScriptModule):
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
    return view


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """`torch.jit.script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None)`: a function ->
    ScriptFunction, a Module -> RecursiveScriptModule (eager; see the module docstring). Classes, and objects
    that are neither, raise as PyTorch does for a built-in class."""
    warnings.warn("`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  DeprecationWarning, stacklevel=2)
    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(obj, Module):
        return _module_view(obj, RecursiveScriptModule)
    if inspect.isclass(obj):
        if obj.__module__ == "builtins":
            raise RuntimeError("TorchScript classes must be new-style classes. Please inherit from 'object'.")
        _no_ir("torch.jit.script on a class (TorchScript classes)")
    if callable(obj):
        return ScriptFunction(obj)
    raise TypeError(f"{type(obj)} is a built-in class")


def _as_tuple(example_inputs):
    from .. import _api
    if isinstance(example_inputs, _api.Tensor):
        return (example_inputs,)
    return tuple(example_inputs) if isinstance(example_inputs, (tuple, list)) else (example_inputs,)


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """`torch.jit.trace(func, example_inputs=None, ...)`: runs `func` once on the example inputs (with
    `is_tracing()` True) and returns a ScriptFunction (function) or TopLevelTracedModule (module) that runs
    eagerly. Difference: no graph is recorded, so data-dependent control flow is not frozen as in PyTorch
    (the result follows Python on every call)."""
    warnings.warn("`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  DeprecationWarning, stacklevel=2)
    if isinstance(func, (ScriptModule, ScriptFunction)):
        return func
    if not callable(func) or inspect.isclass(func):
        raise RuntimeError("Could not get name of python class object")
    if example_inputs is None and example_kwarg_inputs is None:
        raise RuntimeError("example_kwarg_inputs or example_inputs must be provided")
    args = () if example_inputs is None else _as_tuple(example_inputs)
    kwargs = example_kwarg_inputs or {}
    _tracing[0] += 1
    try:
        func(*args, **kwargs)
    finally:
        _tracing[0] -= 1
    if isinstance(func, Module):
        _warn_trace_method()
        return _module_view(func, TopLevelTracedModule)
    return ScriptFunction(func)


def _warn_trace_method():
    warnings.warn("`torch.jit.trace_method` is deprecated. Please switch to `torch.compile` or "
                  "`torch.export`.",
                  DeprecationWarning, stacklevel=3)


def trace_module(mod, inputs, **kwargs):
    """`torch.jit.trace_module(mod, inputs: dict[method name, example inputs], ...)`: runs each method once
    on its inputs; returns a TopLevelTracedModule (eager)."""
    _warn_trace_method()
    if not isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    _tracing[0] += 1
    try:
        for name, example in inputs.items():
            getattr(mod, name)(*_as_tuple(example))
    finally:
        _tracing[0] -= 1
    return _module_view(mod, TopLevelTracedModule)
