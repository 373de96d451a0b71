"""`torch.nn.Parameter`, `torch.nn.Buffer` and the uninitialized (lazy) variants.

A Parameter is a Tensor subclass that shares the given tensor's storage and version counter (PyTorch's
`Tensor._make_subclass`: a detached alias) and requires grad by default. `Buffer(t)` is, as in PyTorch, a
plain detached Tensor flagged `_is_buffer` (with a `persistent` attribute); `isinstance(x, Buffer)` checks
the flag.

Difference from PyTorch: PyTorch blocks every op on an uninitialized parameter through `__torch_function__`;
torchshim has no such dispatch, so only `shape`, `share_memory_`, `repr` and pickling raise or differ (ops on
the 0-element placeholder fail with their own shape errors).
"""
from collections import OrderedDict

from .._tensor import Tensor
from ..ops._subclass import disabled_torch_function_impl as _disabled_torch_function_impl

__all__ = ["Parameter", "UninitializedParameter", "is_lazy", "Buffer", "UninitializedBuffer",
           "UninitializedTensorMixin"]


def _empty(shape=(0,), device=None, dtype=None):
    from .. import _api as torchshim
    return torchshim.empty(shape, device=device, dtype=dtype)


def _make_subclass(cls, data, requires_grad):
    """PyTorch's `Tensor._make_subclass`: an instance of `cls` aliasing `data` (same storage, geometry and
    version counter, no history), with `requires_grad` set."""
    t = Tensor._make(data._storage, data._shape, data._stride, data._offset, data._dtype, data._vc,
                     lens=data._lens)
    t.__class__ = cls
    if requires_grad:
        if not (data._dtype.is_floating_point or data._dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t


class _ParameterMeta(type):
    """`isinstance(t, Parameter)` is also True for tensors flagged `_is_param` (PyTorch's custom tensors)."""

    def __instancecheck__(cls, instance):
        if cls is Parameter and isinstance(instance, Tensor) and getattr(instance, "_is_param", False):
            return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """`torch.nn.Parameter(data=None, requires_grad=True)`: a Tensor that a Module registers as a parameter
    when assigned as an attribute. Shares `data`'s storage; `requires_grad` is True by default, even under
    no_grad.

    >>> p = Parameter(torchshim.zeros(2)); p.requires_grad
    True
    """

    # repr: 'Parameter containing:\ntensor([0., 0.], requires_grad=True)'
    _repr_prefix = "Parameter containing:\n"
    __torch_function__ = _disabled_torch_function_impl  # as PyTorch's: results are plain Tensors

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty()
        if type(data) is Tensor or type(data) is Parameter:
            return _make_subclass(cls, data, requires_grad)
        t = data.detach().requires_grad_(requires_grad)
        t._is_param = True
        return t

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        state = dict(self.__dict__)
        return (_rebuild_parameter, (self.data, self.requires_grad, OrderedDict(), state or None))


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    p = Parameter(data, requires_grad)
    if state:
        p.__dict__.update(state)
    return p


class UninitializedTensorMixin:
    """Shared behaviour of UninitializedParameter/UninitializedBuffer: `materialize(shape, device, dtype)`
    turns the placeholder into a real tensor of class `cls_to_become`."""

    def materialize(self, shape, device=None, dtype=None):
        """Create a Parameter or Tensor with the same properties of the uninitialized one (`shape`, and
        `device`/`dtype` defaulting to the placeholder's)."""
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = _empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the "
            "parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param):
    """Whether `param` is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """`torch.nn.UninitializedParameter(requires_grad=True, device=None, dtype=None)`: a parameter whose shape
    is not known yet (lazy modules); `materialize(shape)` makes it a Parameter."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _make_subclass(cls, _empty(device=device, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


class _BufferMeta(type):
    """`isinstance(t, Buffer)` is True for tensors flagged `_is_buffer` (what `Buffer(...)` returns)."""

    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """`torch.nn.Buffer(data=None, *, persistent=True)`: a tensor a Module registers as a buffer when assigned
    as an attribute. As in PyTorch, the result is a plain detached Tensor with `persistent` and `_is_buffer`
    attributes (`type(Buffer(t)) is Tensor`, `isinstance(Buffer(t), Buffer)` is True)."""

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty()
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """`torch.nn.UninitializedBuffer(requires_grad=False, device=None, dtype=None, persistent=True)`: a buffer
    whose shape is not known yet; `materialize(shape)` makes it a Tensor."""

    cls_to_become = Tensor
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        ret = _make_subclass(cls, _empty(device=device, dtype=dtype), requires_grad)
        ret.persistent = persistent
        ret._is_buffer = True
        return ret

