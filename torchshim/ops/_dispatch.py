"""The one path from Tensors to jax and back: operand conversion, PyTorch promotion, device checks, jitted
kernels, and wrapping results.

Kernels are jitted once per op (`_fused.jit`: jax.jit, or recorded in fused eager mode); jax caches
compilations per shape/dtype/static argument. The compute and result dtypes are static arguments, so a cast
and the op fuse into one dispatch.
"""
import numbers
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .. import _backcompat
from .. import _device as Dev
from .. import _dtype as D
from .._promotion import _wrapped_dtype, result_type_of
from .._tensor import Tensor, fresh  # noqa: F401  (fresh: re-exported for the op modules)
from ..autograd._forward import STATE as _fw, convert_tangent
from ..autograd._node import record
from ..autograd.grad_mode import is_grad_enabled
from .._fused import jit as _fjit

__all__ = ["fresh", "unary", "binary", "kernel", "convert", "promote", "check_devices", "broadcast_error"]


# ---- promotion kinds (as torch._prims_common.ELEMENTWISE_TYPE_PROMOTION_KIND) ---------------------------
DEFAULT, INT_TO_FLOAT, ALWAYS_BOOL, COMPLEX_TO_FLOAT, BOOL_TO_LONG, NO_OPMATH = (
    "default", "int_to_float", "always_bool", "complex_to_float", "bool_to_long", "no_opmath")


def _result_dtypes(kind, promoted):
    """(compute dtype, result dtype) of an elementwise op of promotion `kind` on inputs promoting to
    `promoted`."""
    if kind == INT_TO_FLOAT and not (promoted.is_floating_point or promoted.is_complex):
        p = D.get_default_dtype()
        return p, p
    if kind == ALWAYS_BOOL:
        return promoted, D.bool_
    if kind == COMPLEX_TO_FLOAT and promoted.is_complex:
        return promoted, promoted.to_real()
    if kind == BOOL_TO_LONG and promoted is D.bool_:
        return D.int64, D.int64
    return promoted, promoted


_promo_cache = {}


def promote(kind, operands):
    """Compute and result dtype for `operands` (Tensors and Python numbers) under promotion `kind`."""
    key = [kind]
    dims, zeros, wrapped = [], [], []
    for x in operands:
        if isinstance(x, Tensor):
            d = x._dtype
            (dims if x._shape else zeros).append(d)
            key.append(d)
            key.append(bool(x._shape))
        else:
            d = _wrapped_dtype(x)
            wrapped.append(d)
            key.append(d)
            key.append(None)
    key = tuple(key)
    r = _promo_cache.get(key)
    if r is None:
        r = _promo_cache[key] = _result_dtypes(kind, result_type_of(dims, zeros, wrapped))
    return r


def check_devices(tensors):
    """PyTorch's error when tensors on different devices meet (0-dim cpu tensors may join any device)."""
    dev = None
    for t in tensors:
        d = t._storage.device
        if dev is None:
            dev = d
        elif d is not dev:
            if d.type == "cpu" and not t._shape:
                continue
            if dev.type == "cpu" and dev is not d:
                dev = d
                continue
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two "
                               f"devices, {dev} and {d}!")
    return dev


def broadcast_error(shapes):
    """Raise PyTorch's broadcasting error for `shapes` (called after jax rejected them)."""
    out = []
    for shp in shapes:
        shp = tuple(shp)
        if len(shp) > len(out):
            out = [1] * (len(shp) - len(out)) + out
        for i in range(1, len(shp) + 1):
            a, b = out[-i], shp[-i]
            if a != b and a != 1 and b != 1:
                raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                                   f"non-singleton dimension {len(out) - i}")
            if a == 1:
                out[-i] = b
    return tuple(out)


def _operand_error(name, pos, argname, x):
    return TypeError(f"{name}(): argument '{argname}' (position {pos}) must be Tensor, "
                     f"not {type(x).__name__}")


def _is_scalar(x):
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


_LOW_PRECISION = (np.dtype(D.float16.np), np.dtype(D.bfloat16.np))


def _cast_body(jfn, opmath=True, name=None):
    def body(*args, cdt, rdt, **kw):
        # PyTorch computes half/bfloat16 math in float32 ("opmath") and rounds once
        if opmath and cdt in _LOW_PRECISION:
            cdt = np.float32
        args = [a.astype(cdt) if a.dtype != cdt else a for a in map(jnp.asarray, args)]
        r = jfn(*args, **kw)
        return r.astype(rdt) if r.dtype != rdt else r
    if name:  # the kernel's name in jax's logs and TORCHSHIM_LOGS=kernels: the op's
        body.__name__ = body.__qualname__ = name
    return body


def unary(name, jfn, kind=DEFAULT, static=(), opmath=True):
    """Front function `f(input, **static_kwargs)` for an elementwise jax function of one array.

    opmath: compute float16/bfloat16 in float32 and round once, as PyTorch's CPU kernels mostly do."""
    jitted = _fjit(_cast_body(jfn, opmath, name), static_argnames=("cdt", "rdt", *static))

    def f(input, **kw):
        if not isinstance(input, Tensor):
            raise _operand_error(name, 1, "input", input)
        cdt, rdt = promote(kind, (input,))
        out = jitted(input._value, cdt=cdt.np, rdt=rdt.np, **kw)
        return fresh(out, rdt, input._storage.device)
    f.__name__ = name
    return f


def binary(name, jfn, kind=DEFAULT, static=(), opmath=True):
    """Front function `f(input, other, **static_kwargs)` for an elementwise jax function of two arrays.

    Either operand may be a Python number (PyTorch's wrapped scalar, lowest promotion priority)."""
    jitted = _fjit(_cast_body(jfn, opmath, name), static_argnames=("cdt", "rdt", *static))
    same = {}  # dtype -> (compute np dtype, result np dtype, result dtype) when both tensors share a dtype

    def f(input, other, **kw):
        if isinstance(input, Tensor) and isinstance(other, Tensor):
            dev = input._storage.device
            if other._storage.device is not dev:
                dev = check_devices((input, other))
            d = input._dtype
            if other._dtype is d:  # fast path: promotion of equal dtypes is that dtype
                r = same.get(d)
                if r is None:
                    c, rd = _result_dtypes(kind, d)
                    r = same[d] = (c.np, rd.np, rd)
            else:
                c, rd = promote(kind, (input, other))
                r = (c.np, rd.np, rd)
            a, b = input._value, other._value
        else:
            if isinstance(input, Tensor):
                if not _is_scalar(other):
                    raise _operand_error(name, 2, "other", other)
                dev, a, b = input._storage.device, input._value, other
            elif isinstance(other, Tensor):
                if not _is_scalar(input):
                    raise _operand_error(name, 1, "input", input)
                dev, a, b = other._storage.device, input, other._value
            else:
                raise _operand_error(name, 1, "input", input)
            c, rd = promote(kind, (input, other))
            r = (c.np, rd.np, rd)
        if _backcompat.broadcast_warning.enabled:
            _warn_broadcast(jnp.shape(a), jnp.shape(b))
        try:
            out = jitted(a, b, cdt=r[0], rdt=r[1], **kw)
        except (TypeError, ValueError):
            broadcast_error((jnp.shape(a), jnp.shape(b)))
            raise
        return fresh(out, r[2], dev)
    f.__name__ = name
    return f


def _warn_broadcast(sa, sb):
    """The 0.2 release notes' backcompat warning: same number of elements, different shapes."""
    import math
    import warnings
    if tuple(sa) != tuple(sb) and math.prod(sa) == math.prod(sb) and sa and sb:
        warnings.warn("self and other do not have the same shape, but are broadcastable, and have the same "
                      "number of elements.", UserWarning, stacklevel=3)


def kernel(fn=None, *, static=()):
    """Decorator: a jitted jax kernel with the given static keyword arguments."""
    if fn is None:
        return partial(kernel, static=static)
    return _fjit(fn, static_argnames=static)


@partial(_fjit, static_argnames=("dt",))
def _astype(a, dt):
    return a.astype(dt)


def convert(t, dtype, device):
    """`t` as a new tensor of `dtype` on `device` (a canonical torch.device)."""
    arr = t._value
    if dtype is not t._dtype:
        arr = _astype(arr, dtype.np)
    if device is not t._storage.device:
        arr = jax.device_put(arr, Dev.to_jax(device))
    out = fresh(arr, dtype, device)  # jax arrays are immutable: sharing one between two storages is safe
    if _fw.level is not None:  # forward AD: the tangent converted the same way
        convert_tangent(t, out, _to_forward(dtype))
    if t._requires_grad and (dtype.is_floating_point or dtype.is_complex):
        if is_grad_enabled():
            record("ToCopyBackward0", [t], [out], _to_forward(dtype), ("to", dtype), saves="none")
    return out


_TO_FORWARDS = {}


def _to_forward(dtype):
    f = _TO_FORWARDS.get(dtype)
    if f is None:
        def f(arrays):
            a = arrays[0]
            if jnp.iscomplexobj(a) and not dtype.is_complex:
                a = jnp.real(a)
            return (a.astype(dtype.np),)
        _TO_FORWARDS[dtype] = f
    return f
