"""Helpers for the `grad_fn` names that ops declare on their registration (`register(..., grad_name=...)`).

An op's node is named `<CamelCaseName>Backward0` unless its registration says otherwise: a string, or a
callable(args, kwargs) -> name for ops whose PyTorch node depends on the arguments (Tensor/Scalar overloads, a
given `dim`, the input's number of dims). The generic builders of such callables are here; the naming rules of
one op live beside that op's forward in torchshim/ops/.
"""
from .._tensor import Tensor

__all__ = ["camel", "default_grad_name", "arg", "dim_given", "with_dim", "by_tensor", "if_given", "ndim_name",
           "complex_input"]


def camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.strip("_").split("_"))


def default_grad_name(name):
    """The node name of op `name` when its registration gives none: `<CamelCaseName>Backward0`."""
    return camel(name) + "Backward0"


def arg(args, kwargs, pos, name, default=None):
    return args[pos] if len(args) > pos else kwargs.get(name, default)


def dim_given(args, kwargs, pos=1):
    return "dim" in kwargs or "axis" in kwargs or len(args) > pos and args[pos] is not None


def with_dim(base, zero="0", one="1", pos=1):
    """`base + one` when a dim is given (argument `pos` or keyword), else `base + zero` (sum, mean, ...)."""
    def name(args, kwargs):
        return base + (one if dim_given(args, kwargs, pos) else zero)
    return name


def by_tensor(pos, name, tensor_name, other_name):
    """`tensor_name` when argument (pos, name) is a Tensor, else `other_name` (PyTorch's Tensor/Scalar
    overloads)."""
    def f(args, kwargs):
        return tensor_name if isinstance(arg(args, kwargs, pos, name), Tensor) else other_name
    return f


def if_given(key, given, default):
    """`given` when keyword `key` is passed, else `default`."""
    def f(args, kwargs):
        return given if key in kwargs else default
    return f


def ndim_name(names):
    """By the input's number of dims: names[ndim] (the last entry for more dims)."""
    def f(args, kwargs):
        t = arg(args, kwargs, 0, "input")
        nd = t.ndim if isinstance(t, Tensor) else 0
        return names[min(nd, len(names) - 1)]
    return f


def complex_input(complex_name, real_name):
    """`complex_name` for a complex input, else `real_name`."""
    def f(args, kwargs):
        t = arg(args, kwargs, 0, "input")
        return complex_name if isinstance(t, Tensor) and t._dtype.is_complex else real_name
    return f
