"""Creation functions: zeros/ones/full/empty (+ _like, new_*), empty_strided, scalar_tensor, eye, complex, and
the helpers shared with `tensor_data.py` (tensor, as_tensor, asarray, from_numpy, new_tensor) and `ranges.py`
(arange, range, linspace, logspace). Random creation lives in `random.py`.

Factories take `out=` themselves (not through the registry's generic out=): like PyTorch they compute in out's
dtype and resize it silently. Scalars are converted with PyTorch's checks (`fill_scalar`), arrays with its CPU
casts (`cast`)."""

import numbers
import operator

import jax
import jax.numpy as jnp
import numpy as np

from .. import _device as Dev
from .. import _dtype as D
from .. import _layout as L
from .. import _view as V
from .._promotion import short_name
from .._storage import Storage
from .._index_check import note_host_range
from .._tensor import Tensor
from . import _dispatch as P
from ._registry import register, write_out
from .copy import dense_order, infer_dense_strides, like_strides, memory_order
from .indexing import scalar_to

__all__ = ["place", "finish", "cast", "fill_scalar", "infer_dtype", "tensor"]

_NO = object()  # "argument not given", where PyTorch tells None from absence


def place(array, device):
    """Put a numpy/jax array on the jax device of canonical torch `device`."""
    return jax.device_put(array, Dev.to_jax(device))


def finish(array, dtype, device, requires_grad=False, stride=None):
    """Wrap a freshly created array (numpy or jax, of `dtype` and the result's shape) as a Tensor on `device`,
    laid out with `stride` (None: contiguous)."""
    if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    shape = tuple(array.shape)
    if stride is None or tuple(stride) == V.contiguous_strides(shape):
        t = P.fresh(place(array, device) if isinstance(array, np.ndarray) else array, dtype, device)
        if isinstance(array, np.ndarray) and array.dtype.kind in "iu" and 0 < array.size <= 1 << 20:
            # index/target tensors made from host data: no sync to check them
            note_host_range(t._storage, array)
    else:  # scatter the values into a flat storage with this geometry
        n = 1 + sum((s - 1) * st for s, st in zip(shape, stride)) if all(shape) else 0
        idx = V.index_map(shape, tuple(stride), 0).reshape(-1)
        if isinstance(array, np.ndarray):
            flat = np.zeros((n,), array.dtype)
            flat[idx] = array.reshape(-1)
            flat = place(flat, device)
        else:
            flat = jnp.zeros((n,), array.dtype).at[idx].set(array.reshape(-1))
        t = Tensor._make(Storage(flat, device), shape, tuple(stride), 0, dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def cast(a, d):
    """numpy/jax array `a` as dtype `d` with PyTorch's CPU conversions: complex -> real keeps the real part;
    float -> integer truncates, through int32 for 8/16/32-bit results (out of range or NaN -> INT_MIN, then
    wrapped)."""
    xp = np if isinstance(a, (np.ndarray, np.generic)) else jnp
    if jnp.issubdtype(a.dtype, jnp.complexfloating) and not d.is_complex:
        a = a.real
    if jnp.issubdtype(a.dtype, jnp.floating) and not (d.is_floating_point or d.is_complex or d is D.bool_):
        lim = 2.0**63 if d in (D.int64, D.uint64, D.uint32) else 2.0**31
        a = a.astype(np.float64)
        ok = xp.isfinite(a) & (a >= -lim) & (a < lim)
        a = xp.where(ok, a, -lim).astype(np.int64 if lim > 2.0**31 else np.int32)
    with np.errstate(all="ignore"):
        return a.astype(d.np)


def default_complex():
    """The complex dtype of the default float (complex64, complex128; complex64 for float16, as torchshim has
    no complex32); PyTorch's error when the default is bfloat16."""
    if D.get_default_dtype() is D.bfloat16:
        raise RuntimeError("invalid default scalar type for complex")
    return D.default_complex()


def _tp(x):
    """CPython's tp_name of x's type, as Python and PyTorch print it: 'list', 'numpy.float32', 'Tensor'."""
    t = type(x)
    if t.__module__ == "builtins" or t.__flags__ & (1 << 9):
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


def _is_int(v):
    return (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))) or (
        isinstance(v, Tensor)
        and v.ndim == 0
        and not v._dtype.is_floating_point
        and not v._dtype.is_complex
        and v._dtype is not D.bool_
    )


def _number(fname, argname, pos, v):
    """A Scalar argument (Python/numpy number, or 0-dim tensor that does not require grad), PyTorch's
    TypeError otherwise. numpy scalars become Python numbers as PyTorch reads them (numpy bool and complex as
    floats)."""
    if isinstance(v, Tensor) and v.ndim == 0 and not v.requires_grad:
        return v
    if isinstance(v, np.generic) and isinstance(v, (np.number, np.bool_)):
        return int(v) if isinstance(v, np.integer) else float(v.real)
    if isinstance(v, numbers.Number) and not isinstance(v, Tensor):
        return v
    where = f" (position {pos})" if pos else ""
    raise TypeError(f"{fname}(): argument '{argname}'{where} must be Number, not {_tp(v)}")


def fill_scalar(v, d, numel):
    """Scalar `v` converted to `d` as `fill_` does: checked (PyTorch's overflow error), except that a
    one-element float16/bfloat16 fill goes through double unchecked (overflow -> inf)."""
    if (
        numel == 1
        and d in (D.float16, D.bfloat16)
        and not (isinstance(v, Tensor) and isinstance(v._value, jax.core.Tracer))
    ):
        v = v.item() if isinstance(v, Tensor) else v
        if isinstance(v, complex):
            if v.imag != 0:
                raise RuntimeError("value cannot be converted to type double without overflow")
            v = v.real
        with np.errstate(over="ignore"):
            return np.asarray(float(v)).astype(d.np)
    return scalar_to(v, d)


def _int_list(fname, argname, pos, v):
    """An IntArrayRef argument given as one sequence (PyTorch's argument-parser messages)."""
    where = f" (position {pos})" if pos else ""
    if not isinstance(v, (tuple, list)):
        raise TypeError(f"{fname}(): argument '{argname}'{where} must be tuple of ints, not {_tp(v)}")
    for i, a in enumerate(v):
        if not _is_int(a):
            if i == 0:
                raise TypeError(
                    f"{fname}(): argument '{argname}'{where} must be tuple of ints, but found element "
                    f"of type {_tp(a)} at pos 0"
                )
            raise TypeError(
                f"{fname}(): argument '{argname}' failed to unpack the object at pos {i + 1} with error "
                f'"type must be tuple of ints,but got {_tp(a)}"'
            )
    return tuple(operator.index(a) for a in v)


def _size_args(fname, args, size):
    """`*size` of zeros/ones/empty/new_*: varargs ints, one sequence, or `size=`."""
    if args and size is not None:
        raise TypeError(f"{fname}() got multiple values for argument 'size'")
    if size is not None:
        return _int_list(fname, "size", 0, size)
    if not args:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "size"')
    if len(args) == 1 and not _is_int(args[0]):
        return _int_list(fname, "size", 1, args[0])
    return _int_list(fname, "size", 1, list(args))


def _check_sizes(fname, shape):
    for s in shape:
        if s < 0:
            if fname == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    return shape


def _out_dtype(fname, out, dtype):
    """The dtype a factory with `out=` computes in (out's), with PyTorch's checks."""
    if out is None:
        return dtype
    if not isinstance(out, Tensor):
        raise TypeError(f"{fname}(): argument 'out' must be Tensor, not {_tp(out)}")
    if dtype is not None and dtype is not out._dtype:
        raise RuntimeError(
            f"dtype {short_name(dtype)} does not match dtype of out parameter ({short_name(out._dtype)})"
        )
    return out._dtype


def _into(out, t, requires_grad, keep_numel=False):
    """Write the new tensor `t` into `out` (resized silently; `keep_numel`: only when the numel differs)."""
    if out._shape != t._shape and not (keep_numel and out.numel() == t.numel()):
        out._resize_storage(t._shape)
    out._assign_from(t.reshape(out._shape) if out._shape != t._shape else t, "out")
    if requires_grad:
        out.requires_grad_(True)
    return out


# ---- filled tensors ----------------------------------------------------------------------------------------
def _fill(shape, stride, value, d, dev, requires_grad):
    """A new tensor of `shape`/`stride` (dense) holding `value` (a number, 0-d array or traced scalar)."""
    if stride is None or stride == V.contiguous_strides(shape):
        with jax.default_device(Dev.to_jax(dev)):
            return finish(jnp.full(shape, value, d.np), d, dev, requires_grad)
    n = 1 + sum((s - 1) * st for s, st in zip(shape, stride)) if all(shape) else 0
    with jax.default_device(Dev.to_jax(dev)):
        arr = jnp.full((n,), value, d.np)
    if requires_grad and not (d.is_floating_point or d.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t = Tensor._make(Storage(arr, dev), tuple(shape), tuple(stride), 0, d)
    return t.requires_grad_(True) if requires_grad else t


def _factory(name, value):
    def f(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          names=None, **kw):
        shape = _check_sizes(name, _size_args(name, size, kw.pop("size", None)))
        fmt = kw.pop("memory_format", None) if name == "empty" else None
        if kw:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
        L.check_layout(name, layout, filled=name == "ones")
        stride = _format_strides(shape, fmt)
        d = _out_dtype(name, out, dtype) or D.get_default_dtype()
        if out is not None and name == "empty":  # resize only: the values are uninitialised anyway
            if out._shape != shape:
                out._resize_storage(shape)
            return out.requires_grad_(True) if requires_grad else out
        t = _fill(shape, stride, value, d, Dev.canonical(device), requires_grad and out is None)
        return t if out is None else _into(out, t, requires_grad)

    f.__name__ = name
    f.__doc__ = (
        f"`torch.{name}(*size, *, out=None, dtype=None, layout=torch.strided, device=None, "
        f"requires_grad=False{', memory_format=torch.contiguous_format' if name == 'empty' else ''})`; size "
        "as varargs, one sequence or `size=`. Sparse layouts raise NotImplementedError."
        + (" Difference: memory is zero-filled, not uninitialised." if name == "empty" else "")
    )
    return f


def _format_strides(shape, fmt):
    """The strides `torch.empty(..., memory_format=fmt)` gives (None: contiguous), with PyTorch's errors."""
    if fmt is None:
        return None
    fmt = L.check_memory_format("empty", fmt, optional=False)
    if fmt is L.preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    return L.format_strides(shape, fmt)


zeros = register("zeros", method=False, kind="creation")(_factory("zeros", 0))
ones = register("ones", method=False, kind="creation")(_factory("ones", 1))
empty = register("empty", method=False, kind="creation")(_factory("empty", 0))


def _fill_dtype(v):
    """The dtype `torch.full` infers from its Scalar fill value."""
    if isinstance(v, Tensor):
        v = v._dtype
        return (
            D.bool_
            if v is D.bool_
            else default_complex()
            if v.is_complex
            else D.get_default_dtype()
            if v.is_floating_point
            else D.int64
        )
    if isinstance(v, bool):
        return D.bool_
    if isinstance(v, (int, np.integer)):
        return D.int64
    return default_complex() if isinstance(v, (complex, np.complexfloating)) else D.get_default_dtype()


@register("full", method=False, kind="creation")
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, names=None):
    """`torch.full(size, fill_value, *, out=None, dtype=None, ...)`: dtype inferred from fill_value (bool,
    int64, default float or complex); the value is converted with PyTorch's overflow check."""
    shape = _check_sizes("full", _int_list("full", "size", 1, size))
    L.check_layout("full", layout, filled=True)
    v = _number("full", "fill_value", 2, fill_value)
    d = _out_dtype("full", out, dtype) or _fill_dtype(v)
    t = _fill(
        shape,
        None,
        fill_scalar(v, d, V.numel(shape)),
        d,
        Dev.canonical(device),
        requires_grad and out is None,
    )
    return t if out is None else _into(out, t, requires_grad)


@register("empty_strided", method=False, kind="creation")
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """`torch.empty_strided(size, stride, ...)`: zero-filled storage viewed with the given strides."""
    size = _int_list("empty_strided", "size", 1, size)
    stride = _int_list("empty_strided", "stride", 2, stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides ({len(stride)})"
        )
    _check_sizes("empty_strided", size)
    L.check_layout("empty_strided", layout)
    if any(st < 0 for st in stride):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}"
        )
    d = dtype or D.get_default_dtype()
    return _fill(size, stride, 0, d, Dev.canonical(device), requires_grad)


def _preserve_strides(shape, stride):
    """The strides of a preserve_format copy (`empty_like`, `.to`, `torch.tensor(t)`): input's when
    non-overlapping and dense, else PyTorch's infer_dense_strides (same memory order)."""
    return tuple(stride) if dense_order(shape, stride) is not None else infer_dense_strides(shape, stride)


def _like_args(name, input, memory_format, layout):
    """The strides of a `*_like` result (PyTorch's empty_like with `memory_format`), after the argument
    checks."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {_tp(input)}")
    L.check_layout(name, layout)
    return like_strides(input._shape, input._stride, L.check_memory_format(name, memory_format))


def _like(name, value):
    def f(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
          pin_memory=False):
        stride = _like_args(name, input, memory_format, layout)
        dev = Dev.canonical(device if device is not None else input.device)
        return _fill(input._shape, stride, value, dtype or input._dtype, dev, requires_grad)

    f.__name__ = name
    f.__doc__ = (
        f"`torch.{name}(input, *, dtype=None, layout=None, device=None, requires_grad=False, "
        "memory_format=torch.preserve_format)`: shape, dtype, device and (dense) strides of input, or the "
        "strides of `memory_format`."
    )
    return f


register("zeros_like", method=False, kind="creation")(_like("zeros_like", 0))
register("ones_like", method=False, kind="creation")(_like("ones_like", 1))
register("empty_like", method=False, kind="creation")(_like("empty_like", 0))


@register("full_like", method=False, kind="creation")
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None, pin_memory=False):
    """`torch.full_like(input, fill_value, *, dtype=None, ...)`: shape, dtype, device and strides of input."""
    stride = _like_args("full_like", input, memory_format, layout)
    v = _number("full_like", "fill_value", 2, fill_value)
    d = dtype or input._dtype
    dev = Dev.canonical(device if device is not None else input.device)
    return _fill(input._shape, stride, fill_scalar(v, d, input.numel()), d, dev, requires_grad)


def _new(name, value):
    def f(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False, **kw):
        shape = _check_sizes(name, _size_args(name, size, kw.pop("size", None)))
        L.check_layout(name, layout)
        dev = Dev.canonical(device if device is not None else self.device)
        return _fill(shape, None, value, dtype or self._dtype, dev, requires_grad)

    f.__name__ = name
    f.__doc__ = (
        f"`Tensor.{name}(size, *, dtype=None, device=None, requires_grad=False)`: dtype and device "
        "default to self's."
    )
    return f


register("new_zeros", function=False, kind="creation")(_new("new_zeros", 0))
register("new_ones", function=False, kind="creation")(_new("new_ones", 1))
register("new_empty", function=False, kind="creation")(_new("new_empty", 0))


@register("new_full", function=False, kind="creation")
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    """`Tensor.new_full(size, fill_value, *, dtype=None, device=None, requires_grad=False)`."""
    shape = _check_sizes("new_full", _int_list("new_full", "size", 1, size))
    L.check_layout("new_full", layout)
    v = _number("new_full", "fill_value", 2, fill_value)
    d = dtype or self._dtype
    dev = Dev.canonical(device if device is not None else self.device)
    return _fill(shape, None, fill_scalar(v, d, V.numel(shape)), d, dev, requires_grad)


@register("scalar_tensor", method=False, kind="creation")
def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """`torch.scalar_tensor(s, *, dtype=None, device=None)`: a 0-dim tensor (default float dtype)."""
    L.check_layout("scalar_tensor", layout if not isinstance(layout, L.layout) else None)  # others ignored
    d = dtype or D.get_default_dtype()
    return _fill(
        (),
        None,
        fill_scalar(_number("scalar_tensor", "s", 1, s), d, 1),
        d,
        Dev.canonical(device),
        requires_grad,
    )


@register("eye", method=False, kind="creation")
def eye(n, m=_NO, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """`torch.eye(n, m=None, *, out=None, dtype=None, device=None, requires_grad=False)`."""
    if not _is_int(n):
        raise TypeError(f"eye(): argument 'n' (position 1) must be int, not {_tp(n)}")
    if m is not _NO and not _is_int(m):
        raise TypeError(
            f"eye() received an invalid combination of arguments - got ({_tp(n)}, {_tp(m)}), but "
            "expected one of:"
        )
    n = operator.index(n)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    m = n if m is _NO else operator.index(m)
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    L.check_layout("eye", layout)
    d = _out_dtype("eye", out, dtype) or D.get_default_dtype()
    t = finish(np.eye(n, m, dtype=d.np), d, Dev.canonical(device), requires_grad and out is None)
    return t if out is None else _into(out, t, requires_grad)


@register("complex", method=False, kind="creation")
def complex_(real, imag, *, out=None):
    """`torch.complex(real, imag, *, out=None)`: float32 -> complex64, float64 -> complex128, broadcasting;
    the result is laid out like PyTorch's TensorIterator output. Difference: float16 inputs give complex64
    (torchshim has no complex32)."""
    for i, (name, x) in enumerate((("real", real), ("imag", imag))):
        if not isinstance(x, Tensor):
            raise TypeError(f"complex(): argument '{name}' (position {i + 1}) must be Tensor, not {_tp(x)}")
    floats = (D.float32, D.float64, D.float16)
    if real._dtype not in floats or imag._dtype not in floats:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{short_name(real._dtype)} and {short_name(imag._dtype)}")
    if real._dtype is not imag._dtype:
        raise RuntimeError(f"Expected object of scalar type {short_name(real._dtype)} but got scalar type "
                           f"{short_name(imag._dtype)} for second argument")
    d = D.complex128 if real._dtype is D.float64 else D.complex64
    if isinstance(out, Tensor) and out._dtype is not d:
        raise RuntimeError(f"Expected object of scalar type {short_name(d)} but got scalar type "
                           f"{short_name(out._dtype)} for argument 'out'")
    shape = _broadcast((real._shape, imag._shape))
    rt = d.to_real().np
    arr = jax.lax.complex(jnp.broadcast_to(real._value.astype(rt), shape),
                          jnp.broadcast_to(imag._value.astype(rt), shape))
    t = finish(arr, d, P.check_devices((real, imag)), stride=_iter_strides(shape, (real, imag)))
    return t if out is None else write_out(out, t)


def _broadcast(shapes):
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        P.broadcast_error(shapes)
        raise


def _iter_strides(shape, inputs):
    """The strides PyTorch's TensorIterator gives an elementwise output: the inputs' strides when they all
    have `shape` and one dense layout, else dense strides in the memory order of the (broadcast) inputs."""
    if all(t._shape == shape for t in inputs) and len({t._stride for t in inputs}) == 1 \
            and dense_order(shape, inputs[0]._stride) is not None:
        return inputs[0]._stride
    nd = len(shape)
    ops = []
    for t in inputs:
        pad = nd - len(t._shape)
        ops.append([0] * pad + [0 if n == 1 and shape[pad + i] != 1 else st
                                for i, (n, st) in enumerate(zip(t._shape, t._stride))])

    def should_swap(d0, d1):
        for st in ops:
            if st[d0] == 0 or st[d1] == 0:
                continue
            if st[d0] != st[d1]:
                return -1 if st[d0] < st[d1] else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0
    out, cur = [0] * nd, 1
    for dim in memory_order(nd, should_swap):
        out[dim] = cur
        cur *= shape[dim]
    return tuple(out)


from .tensor_data import infer_dtype, tensor  # noqa: E402,F401  (registered there; re-exported)
from .ranges import arange, linspace, logspace, range_  # noqa: E402,F401  (registered there)
