"""`torch.overrides`: the `__torch_function__` protocol's helpers (the dispatch itself is at the entry of
every public function, ops/_override.py; Tensor's default and subclass helpers in ops/_subclass.py).

Differences from PyTorch: `get_overridable_functions()` lists the op table's functions and Tensor methods
(not PyTorch's exhaustive list); `get_testing_overrides()` gives each of them a lambda that returns -1 with
a `*args, **kwargs` signature rather than PyTorch's exact signatures.
"""
import functools
import sys

from . import _api as torch
from ._api import Tensor
from .ops import _override as _O
from .ops import _registry
from .ops._subclass import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: F401

__all__ = ["get_ignored_functions", "get_overridable_functions", "get_testing_overrides",
           "handle_torch_function", "has_torch_function", "has_torch_function_unary",
           "has_torch_function_variadic", "is_tensor_like", "is_tensor_method_or_property",
           "wrap_torch_function", "resolve_name", "TorchFunctionMode", "enable_reentrant_dispatch"]


def _relevant(args):
    found = []
    for a in args:
        if _O.torch_function_types(a) is not None:
            _O._add(found, a)
    return found


def has_torch_function(relevant_args):
    """`has_torch_function(relevant_args)`: whether an argument's type defines a `__torch_function__` other
    than plain Tensor's (or a TorchFunctionMode is active), while dispatch is enabled."""
    st = _O.STATE
    if st.all_disabled:
        return False
    if st.modes:
        return True
    return not st.subclass_disabled and bool(_relevant(relevant_args))


def has_torch_function_unary(arg):
    """`has_torch_function_unary(arg)`: `has_torch_function((arg,))`."""
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    """`has_torch_function_variadic(*args)`: `has_torch_function(args)`."""
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """`handle_torch_function(public_api, relevant_args, *args, **kwargs)`: call the active TorchFunctionMode,
    then the `__torch_function__` of the overloaded types among `relevant_args` (subclasses first), and return
    the first result that is not NotImplemented; TypeError when all decline."""
    st = _O.STATE
    over = [] if st.subclass_disabled else _relevant(relevant_args)
    types = tuple(type(a) for a in over)
    if st.modes and not st.all_disabled:
        mode = _O.pop_mode()
        try:
            r = mode.__torch_function__(public_api, types, args, kwargs)
        finally:
            _O.push_mode(mode)
        if r is not NotImplemented:
            return r
    for a in over:  # looked up on the argument, as PyTorch (a duck type's plain method is bound)
        r = a.__torch_function__(public_api, types, args, kwargs)
        if r is not NotImplemented:
            return r
    name = f"{getattr(public_api, '__module__', '')}.{getattr(public_api, '__name__', public_api)}"
    msg = f"no implementation found for '{name}' on types that implement __torch_function__: {list(types)}"
    if st.modes:
        msg += f" nor in mode {st.modes[-1]}"
    raise TypeError(msg)


def is_tensor_like(inp):
    """`is_tensor_like(inp)`: a Tensor (or subclass) or an object whose type has `__torch_function__`."""
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def is_tensor_method_or_property(func):
    """`is_tensor_method_or_property(func)`: whether `func` is a method or property of Tensor."""
    name = getattr(func, "__name__", None)
    return func in _tensor_members() or (name is not None and getattr(Tensor, name, None) is func)


@functools.lru_cache(maxsize=None)
def _tensor_members():
    return frozenset(v for k, v in vars(Tensor).items() if callable(v) or isinstance(v, property))


def get_ignored_functions():
    """`get_ignored_functions()`: public functions that can't be overridden (factories and state queries)."""
    return {getattr(torch, n) for n, op in _registry.OPS.items()
            if op.kind in ("creation", "random") and op.function and hasattr(torch, n)}


def get_overridable_functions():
    """`get_overridable_functions()`: {namespace: [functions]} for `torch` and `torch.Tensor` (and
    `torch.nn.functional` once it is imported)."""
    root = sys.modules.get(torch.__name__.rpartition(".")[0], torch)  # the package (not imported: a layer up)
    out = {root: [], Tensor: []}
    ignored = get_ignored_functions()
    for n, op in _registry.OPS.items():
        if op.function and hasattr(torch, n) and getattr(torch, n) not in ignored:
            out[root].append(getattr(torch, n))
        if op.method and hasattr(Tensor, n):
            out[Tensor].append(getattr(Tensor, n))
    nnf = sys.modules.get(root.__name__ + ".nn.functional")
    if nnf is not None:
        out[nnf] = [getattr(nnf, n) for n in getattr(nnf, "__all__", ()) if callable(getattr(nnf, n, None))]
    return out


def get_testing_overrides():
    """`get_testing_overrides()`: {overridable function: a dummy lambda returning -1}."""
    return {f: (lambda *args, **kwargs: -1) for fs in get_overridable_functions().values() for f in fs}


def resolve_name(f):
    """`resolve_name(f)`: 'torch.add', 'torch.Tensor.add', ... or None."""
    m = getattr(f, "__torchshim_method__", None)
    if m is not None:
        return f"torch.Tensor.{m}"
    name = getattr(f, "__name__", None)
    if name is not None and getattr(torch, name, None) is f:
        return f"torch.{name}"
    return None


def wrap_torch_function(dispatcher):
    """`wrap_torch_function(dispatcher)`: decorator making a Python function overridable; `dispatcher(*args,
    **kwargs)` returns the arguments to check for `__torch_function__`."""
    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner


class TorchFunctionMode:
    """`torch.overrides.TorchFunctionMode`: subclass it and define `__torch_function__(self, func, types,
    args=(), kwargs=None)`; inside `with mode:` every public function call goes to it first (with the mode
    itself inactive while it runs)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError()

    def __enter__(self):
        _O.push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _O.pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)


class enable_reentrant_dispatch:
    """`enable_reentrant_dispatch()`: a no-op context here (there is no dispatcher level to re-enter)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _get_current_function_mode():
    modes = _O.STATE.modes
    return modes[-1] if modes else None


def _get_current_function_mode_stack():
    return list(_O.STATE.modes or ())


def _is_torch_function_mode_enabled():
    return bool(_O.STATE.modes) and not _O.STATE.all_disabled
