"""Tensor subclasses through `__torch_function__` (PyTorch's protocol, on the hook of ops/_override.py).

- `Tensor.__torch_function__(func, types, args=(), kwargs=None)`: the default, inherited by subclasses: runs
  `func` with subclass dispatch disabled and converts Tensor results to the subclass (PyTorch's `_convert`).
- `Tensor.__init_subclass__` activates each subclass in the hook unless its `__torch_function__` is
  `torch._C._disabled_torch_function_impl` (Parameter's, Buffer's): so a program without such subclasses keeps
  the one-check fast path.
- `Tensor.as_subclass(cls)` (an alias, `AliasBackward0` when it requires grad), `Tensor._make_subclass(cls,
  data, require_grad=False)` (a detached alias).
- `DisableTorchFunctionSubclass`, `DisableTorchFunction`, `_disabled_torch_function_impl` (public as
  `torch._C.*`).

Differences from PyTorch: Tensor properties (`shape`, `dtype`, `grad`, ...) are not dispatched to
`__torch_function__`; `__torch_dispatch__` is not supported (no aten level: `_make_wrapper_subclass` raises).
"""
from .._methods import add_tensor_method
from .._tensor import Tensor
from ..autograd._node import record
from ..autograd.grad_mode import is_grad_enabled
from . import _override as O

__all__ = ["DisableTorchFunctionSubclass", "DisableTorchFunction", "disabled_torch_function_impl",
           "convert"]


class _DisabledImpl:
    """`torch._C._disabled_torch_function_impl(func, types, args=(), kwargs=None)`: run `func` with subclass
    dispatch disabled. A class whose `__torch_function__` is this takes no part in the protocol."""

    _torchshim_disabled = True
    __name__ = __qualname__ = "_disabled_torch_function_impl"

    def __call__(self, func, types, args=(), kwargs=None):
        with DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))

    def __repr__(self):
        return "<built-in function _disabled_torch_function_impl>"


disabled_torch_function_impl = _DisabledImpl()


class DisableTorchFunctionSubclass:
    """`torch._C.DisableTorchFunctionSubclass()`: inside, arguments' `__torch_function__` are not called
    (TorchFunctionModes still are)."""

    def __enter__(self):
        self._prev = O.STATE.subclass_disabled
        O.STATE.subclass_disabled = True
        return self

    def __exit__(self, *exc):
        O.STATE.subclass_disabled = self._prev
        return False


class DisableTorchFunction:
    """`torch._C.DisableTorchFunction()`: inside, neither arguments' `__torch_function__` nor
    TorchFunctionModes are called."""

    def __enter__(self):
        self._prev = O.STATE.all_disabled
        O.STATE.all_disabled = True
        return self

    def __exit__(self, *exc):
        O.STATE.all_disabled = self._prev
        return False


def convert(ret, cls):
    """PyTorch's `torch._tensor._convert`: Tensor results (also inside tuples and lists) become `cls`."""
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return as_subclass(ret, cls)
    if isinstance(ret, (tuple, list)):
        items = [convert(r, cls) for r in ret]
        return type(ret)(*items) if hasattr(ret, "_fields") else type(ret)(items)
    return ret


def _default_torch_function(cls, func, types, args=(), kwargs=None):
    """`Tensor.__torch_function__(func, types, args=(), kwargs=None)`: run `func` (subclass dispatch disabled)
    and convert its Tensor results to `cls`; NotImplemented when a type in `types` is not a base of `cls`."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
        return convert(ret, cls)


add_tensor_method("__torch_function__", classmethod(_default_torch_function))


def _init_subclass(cls, **kwargs):
    super(Tensor, cls).__init_subclass__(**kwargs)
    if not getattr(cls.__torch_function__, "_torchshim_disabled", False):
        O.activate(cls)


add_tensor_method("__init_subclass__", classmethod(_init_subclass))


def _alias(self, cls):
    out = self._as_view(self._shape, self._stride, self._offset)
    if is_grad_enabled() and (self._requires_grad or self._diff_view and self._base is not None
                              and self._base._requires_grad):
        record("AliasBackward0", [self], [out], _identity, ("alias",), saves="none")
        out._grad_version = out._vc.value
    out.__class__ = cls
    return out


def _identity(arrays):
    return (arrays[0],)


def as_subclass(self, cls):
    """`Tensor.as_subclass(cls)`: an instance of `cls` aliasing self (same storage and version counter), still
    attached to the autograd graph (`AliasBackward0`), as PyTorch's."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                        "possible. Make sure your class inherits from Tensor.")
    with DisableTorchFunctionSubclass():
        return _alias(self, cls)


add_tensor_method("as_subclass", as_subclass)


def _make_subclass(cls, data, require_grad=False, **kwargs):
    """`Tensor._make_subclass(cls, data, require_grad=False)`: an instance of `cls` aliasing `data` (same
    storage, geometry and version counter) with no history, requiring grad when `require_grad`."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"cls must be a type (got {type(cls).__name__})")
    t = Tensor._make(data._storage, data._shape, data._stride, data._offset, data._dtype, data._vc,
                     lens=data._lens)
    t.__class__ = cls
    if require_grad:
        if not (data._dtype.is_floating_point or data._dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t


add_tensor_method("_make_subclass", staticmethod(_make_subclass))


def _make_wrapper_subclass(cls, *args, **kwargs):
    """`Tensor._make_wrapper_subclass`: not supported (it serves `__torch_dispatch__`, which needs an aten
    level torchshim does not have)."""
    raise NotImplementedError("torchshim: Tensor._make_wrapper_subclass / __torch_dispatch__ are not "
                              "supported (there is no aten dispatch level); use __torch_function__ instead")


add_tensor_method("_make_wrapper_subclass", staticmethod(_make_wrapper_subclass))


# Tensor methods outside the op table that PyTorch dispatches to __torch_function__ too
_DUNDERS = frozenset({"__repr__", "__format__", "__len__", "__iter__", "__reversed__", "__contains__",
                      "__array__", "__deepcopy__"})
_NOT_DISPATCHED = frozenset({"as_subclass", "_make_subclass", "_make_wrapper_subclass", "__torch_function__",
                             "__init_subclass__", "data_ptr", "__init__", "__new__"})


def wrap_methods(methods, cls):
    """Make the Tensor methods that are not table ops (`methods`: `_methods.METHODS`, and those defined in
    `cls`'s body) go through the `__torch_function__` hook, as PyTorch's do (`install()` calls this)."""
    def wanted(name, value):
        return (type(value).__name__ == "function" and name not in _NOT_DISPATCHED
                and (not name.startswith("_") or name in _DUNDERS)
                and not getattr(value, "__torchshim_overridable__", False))
    for name, value in list(methods.items()):
        if wanted(name, value):
            methods[name] = _method(value, name)
    for name, value in list(vars(cls).items()):
        if name not in methods and wanted(name, value):
            setattr(cls, name, _method(value, name))


def _method(fn, name):
    m = O.overridable(fn)
    m.__torchshim_method__ = name
    return m
