"""The legacy `torch.autograd.Variable`: since PyTorch 0.4 it returns a plain Tensor."""
import warnings

from .. import _device as Dev
from .. import _dtype as D
from .._tensor import Tensor, filled

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """`Variable(tensor, requires_grad=False, volatile=False)` -> `tensor.detach()` with `requires_grad`
    set, a plain Tensor (PyTorch >= 0.4): it shares the data, not the autograd history or `.grad`.

    `volatile=` is ignored with PyTorch's warning; `isinstance(t, Variable)` is True for every Tensor."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            data = filled((0,), 0, D.get_default_dtype(), Dev.canonical(None))
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        data = data.detach()
        if requires_grad:
            data.requires_grad_(True)
        return data
