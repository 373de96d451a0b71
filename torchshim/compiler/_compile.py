"""`torch.compile`: arguments validated as PyTorch validates them; the function or module then runs as XLA
programs traced from its Python code (`_program.CompiledFunction`: guards, tracing, donation, graph breaks).
A module comes back as an `OptimizedModule` (PyTorch's wrapper: `_orig_mod`, attribute pass-through,
state_dict keys prefixed `_orig_mod.`); a function as a `CompiledFunction` (functools.wraps-style name and
docstring). Every backend and mode name PyTorch accepts is accepted; all compile with XLA."""
import functools

from ..nn.modules.module import Module
from . import _guards
from ._program import CompiledFunction

__all__ = ["compile", "OptimizedModule", "InvalidBackend", "list_backends", "BACKENDS"]

# torch._dynamo.list_backends(exclude_tags=()) in PyTorch 2.13's CPU build; the first four are what
# list_backends() shows (the others are tagged debug/experimental)
BACKENDS = ("cudagraphs", "inductor", "openxla", "tvm")
_HIDDEN = ("aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref",
           "aot_eager_decomp_partition_with_mode", "aot_eager_default_partitioner", "aot_ts",
           "dynamo_accuracy_minifier_backend", "dynamo_minifier_backend", "eager", "eager_debug",
           "eager_noexcept", "invoke_subgraph", "openxla_eval", "pre_dispatch_eager", "ts")
_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


class InvalidBackend(RuntimeError):
    """`torch._dynamo.exc.InvalidBackend` (a RuntimeError)."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available "
                         "backends.")


def list_backends(exclude_tags=("debug", "experimental")):
    """`torch.compiler.list_backends(exclude_tags=('debug', 'experimental'))`: the backend names PyTorch
    2.13 registers (all accepted by torchshim's compile, which runs eagerly whichever is named)."""
    return sorted(BACKENDS if exclude_tags else BACKENDS + _HIDDEN)


class OptimizedModule(Module):
    """`torch._dynamo.eval_frame.OptimizedModule`: wraps the original module (`_orig_mod`), forwards calls
    and attribute reads to it."""

    def __init__(self, mod, fn=None, fullgraph=False, dynamic=None):
        super().__init__()
        self._orig_mod = mod
        self.dynamo_ctx = None
        target = mod if fn is None else fn
        # a module whose forward does eager work around an inner module (DistributedDataParallel: buffer
        # broadcast, arming its gradient reducer) gives `_compile_split() -> (inner, wrapper)`: the program
        # is the inner module's forward and `wrapper(compiled_inner, *args, **kwargs)` runs at every call
        split = getattr(mod, "_compile_split", None) if fn is None else None
        inner, wrapper = split() if split is not None else (mod, None)
        if split is not None:
            target = inner
        self.__dict__["_compiled"] = CompiledFunction(
            target, fullgraph=fullgraph, dynamic=dynamic, name=type(mod).__name__,
            roots=lambda: [inner] + _guards.roots_of(type(inner).forward))
        self.__dict__["_wrapper"] = wrapper
        self.forward = self._compiled if wrapper is None else self.__call__
        _REGISTRY.add(self._compiled)

    def __call__(self, *args, **kwargs):
        if self._wrapper is not None:
            return self._wrapper(self._compiled, *args, **kwargs)
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name):
        if name == "_orig_mod":
            return self._modules["_orig_mod"]
        return getattr(self._orig_mod, name)


def _check_backend(backend):
    if backend is None or callable(backend):
        return
    if not isinstance(backend, str) or backend not in BACKENDS + _HIDDEN:
        raise InvalidBackend(backend)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            name=None, disable=False, recompile_limit=None, isolate_recompiles=False, shapes_spec=None):
    """`torch.compile(model=None, *, fullgraph=False, dynamic=None, backend='inductor', mode=None,
    options=None, disable=False, ...)`: validated as PyTorch does (unknown backend -> InvalidBackend, unknown
    mode -> RuntimeError, mode and options together -> RuntimeError, a non-callable -> AssertionError);
    returns the model running eagerly (see the module docstring). `model=None` returns a decorator."""
    if model is None:
        def fn(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, disable=disable)
        return fn
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same "
                           "time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: " + ", ".join(_MODES))
    _check_backend(backend)
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model, fullgraph=fullgraph, dynamic=dynamic)
    assert callable(model), f"A callable function is expected, but {type(model)} is provided."
    compiled = CompiledFunction(model, fullgraph=fullgraph, dynamic=dynamic)
    _REGISTRY.add(compiled)
    return functools.update_wrapper(_Wrapper(compiled), model, updated=())


class _Wrapper:
    """What `torch.compile(fn)` returns for a function: calls `fn` through its compiled programs;
    `__wrapped__` is `fn` (functools.wraps-style); `_torchdynamo_orig_callable` as PyTorch's."""

    _no_guard = True

    def __init__(self, compiled):
        self._compiled = compiled
        self._torchdynamo_orig_callable = compiled.fn

    def __call__(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)


class _Registry:
    """Every compiled function made, weakly, so `torch.compiler.reset()` can clear their programs."""

    def __init__(self):
        import weakref
        self.items = weakref.WeakSet()

    def add(self, cf):
        self.items.add(cf)

    def reset(self):
        for cf in list(self.items):
            cf.reset()


_REGISTRY = _Registry()
