"""Comparisons, logical and bitwise ops, and closeness tests."""
import numbers

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .._promotion import short_name
from .._tensor import Tensor
from . import _dispatch as P
from ._dispatch import ALWAYS_BOOL
from ._registry import register

_CMP = {"eq": (jnp.equal, "__eq__"), "ne": (jnp.not_equal, "__ne__"), "lt": (jnp.less, "__lt__"),
        "le": (jnp.less_equal, "__le__"), "gt": (jnp.greater, "__gt__"), "ge": (jnp.greater_equal, "__ge__")}
_CMP_ALIASES = {"ne": ("not_equal",), "lt": ("less",), "le": ("less_equal",), "gt": ("greater",),
                "ge": ("greater_equal",)}


def _comparison(name, fn):
    def f(input, other):
        return fn(input, other)
    f.__name__ = name
    f.__doc__ = f"`torch.{name}(input, other, *, out=None)` -> bool tensor; other may be a number."
    return f


def _operator(fn, name):
    def op(self, other):
        if not isinstance(other, (Tensor, numbers.Number)):
            return NotImplemented
        return fn(self, other)
    op.__name__ = name
    return op


for _name, (_fn, _dunder) in _CMP.items():
    _front = _comparison(_name, P.binary(_name, _fn, ALWAYS_BOOL))
    register(_name, inplace=True, out=True, aliases=_CMP_ALIASES.get(_name, ()), kind="pointwise")(_front)
    setattr(Tensor, _dunder, _operator(_front, _dunder))

Tensor.__hash__ = lambda self: id(self)  # defining __eq__ must not make tensors unhashable


# ---- logical: any dtype in, bool out -------------------------------------------------------------------
def _logical(jfn):
    return lambda a, b: jfn(a != 0, b != 0)


for _name, _fn in {"logical_and": jnp.logical_and, "logical_or": jnp.logical_or,
                   "logical_xor": jnp.logical_xor}.items():
    _f = P.binary(_name, _logical(_fn), ALWAYS_BOOL)
    _f.__doc__ = f"`torch.{_name}(input, other, *, out=None)`: elementwise, nonzero is True."
    register(_name, inplace=True, out=True, kind="pointwise")(_f)

_logical_not = P.unary("logical_not", lambda a: a == 0, ALWAYS_BOOL)
_logical_not.__doc__ = "`torch.logical_not(input, *, out=None)`: elementwise, nonzero is True."
register("logical_not", inplace=True, out=True, kind="pointwise")(_logical_not)


# ---- bitwise: integer and bool only ------------------------------------------------------------------------
def _check_integral(name, *xs):
    for x in xs:
        d = x._dtype if isinstance(x, Tensor) else None
        if (d is not None and (d.is_floating_point or d.is_complex)) or isinstance(x, float):
            shown = d if d is not None else D.get_default_dtype()
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{short_name(shown)}\'')


def _bitwise(name, kernel_name, jfn):
    k = P.binary(name, jfn)

    def f(input, other):
        _check_integral(kernel_name, input, other)
        return k(input, other)
    f.__name__ = name
    f.__doc__ = f"`torch.{name}(input, other, *, out=None)`: integer and bool tensors only."
    return f


def _shift(jfn):
    def body(a, b):
        bits = jnp.iinfo(a.dtype).bits if a.dtype != bool else 8
        r = jfn(a, jnp.clip(b, 0, bits - 1).astype(a.dtype))
        if jfn is jnp.left_shift:
            return jnp.where(b >= bits, jnp.zeros_like(r), r)
        return r
    return body


_BITWISE = {
    "bitwise_and": ("bitwise_and", jnp.bitwise_and, ("__and__", "__rand__", "__iand__")),
    "bitwise_or": ("bitwise_or", jnp.bitwise_or, ("__or__", "__ror__", "__ior__")),
    "bitwise_xor": ("bitwise_xor", jnp.bitwise_xor, ("__xor__", "__rxor__", "__ixor__")),
    "bitwise_left_shift": ("lshift", _shift(jnp.left_shift), ("__lshift__", "__rlshift__", "__ilshift__")),
    "bitwise_right_shift": ("rshift", _shift(jnp.right_shift), ("__rshift__", "__rrshift__", "__irshift__")),
}
for _name, (_kname, _fn, _ops) in _BITWISE.items():
    register(_name, inplace=True, out=True, operators=_ops, kind="pointwise")(_bitwise(_name, _kname, _fn))

_bitwise_not_k = P.unary("bitwise_not", lambda a: jnp.logical_not(a) if a.dtype == bool else jnp.invert(a))


@register("bitwise_not", inplace=True, out=True, operators=("__invert__",), kind="pointwise")
def bitwise_not(input):
    """`torch.bitwise_not(input, *, out=None)` (`~x`): integer and bool tensors only."""
    _check_integral("bitwise_not", input)
    return _bitwise_not_k(input)


# ---- closeness and equality ---------------------------------------------------------------------------------
def _isclose_f(a, b, rtol, atol, equal_nan):
    if a.dtype == bool or jnp.issubdtype(a.dtype, jnp.integer):
        a, b = a.astype(jnp.float64), b.astype(jnp.float64)
    close = a == b
    finite = jnp.isfinite(a) & jnp.isfinite(b)
    close = close | (finite & (jnp.abs(a - b) <= atol + rtol * jnp.abs(b)))
    if equal_nan:
        close = close | (jnp.isnan(a) & jnp.isnan(b))
    return close


_isclose_k = P.binary("isclose", _isclose_f, ALWAYS_BOOL, static=("rtol", "atol", "equal_nan"))


@register("isclose", kind="pointwise")
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """`torch.isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)` -> bool tensor.

    |input - other| <= atol + rtol * |other|; both tensors must have the same dtype, as in PyTorch."""
    if isinstance(other, Tensor) and input._dtype is not other._dtype:
        raise RuntimeError(f"{input._dtype} did not match {other._dtype}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    return _isclose_k(input, other, rtol=float(rtol), atol=float(atol), equal_nan=bool(equal_nan))


@register("allclose", kind="pointwise")
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """`torch.allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)` -> Python bool."""
    return bool(jnp.all(isclose(input, other, rtol, atol, equal_nan)._value))


_equal_k = jax.jit(lambda a, b: jnp.all(a == b))


@register("equal", kind="pointwise")
def equal(input, other):
    """`torch.equal(input, other)` -> True if same shape and same values (dtypes are promoted)."""
    if input._shape != other._shape:
        return False
    P.check_devices((input, other))
    d = P.promote(P.DEFAULT, (input, other))[0]
    return bool(_equal_k(input._value.astype(d.np), other._value.astype(d.np)))
