"""torch.tensor-style data parsing (PyTorch's compute_sizes / infer_scalar_type / recursive_store) and the ops
built on it: tensor, as_tensor, asarray, from_numpy, Tensor.new_tensor."""

import math
import operator
import warnings
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .. import _device as Dev
from .. import _dtype as D
from .._promotion import promote_types, short_name
from .._tensor import Tensor
from .._warnings import warn_once
from ._registry import register
from .creation import _preserve_strides, _tp, cast, default_complex, finish

__all__ = ["infer_dtype", "tensor"]

_COPY_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than {}(sourceTensor)."
)
_PLAIN = {bool, int, float, complex}
_NP_OK = (
    "float64",
    "float32",
    "float16",
    "complex64",
    "complex128",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint64",
    "uint32",
    "uint16",
    "uint8",
    "bool",
)


def _np_dtype(npdt):
    if np.dtype(npdt).name not in _NP_OK:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(npdt).type.__name__}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
            "uint64, uint32, uint16, uint8, and bool."
        )
    return D.from_numpy_dtype(npdt)


def _from_ndarray(arr):
    """PyTorch's tensor_from_numpy checks -> (a copy of arr, torch dtype, arr's strides in elements).

    Difference: empty arrays get contiguous strides, not numpy's (often all 0)."""
    if any(s % arr.itemsize for s in arr.strides):
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. Copy the numpy array to "
            "reallocate the memory."
        )
    if any(s < 0 for s in arr.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a copy "
            "of your array  with array.copy().) "
        )
    if not arr.dtype.isnative:
        raise ValueError(
            "given numpy array has byte order different from the native byte order. Conversion "
            "between byte orders is currently not supported."
        )
    d = _np_dtype(arr.dtype)
    if arr.size == 0:
        return np.array(arr), d, None
    return np.array(arr), d, tuple(s // arr.itemsize for s in arr.strides)


def _is_seq(x):
    return isinstance(x, (list, tuple, range, np.ndarray, str, bytes)) or (
        isinstance(x, Sequence) and not isinstance(x, Tensor)
    )


def infer_dtype(data):
    """The dtype `torch.tensor(data)` gives: PyTorch's promotion over every element (bool, int64, the default
    float or complex for Python numbers; their own dtype for numpy values and tensors; the default float when
    empty)."""
    if isinstance(data, bool):
        return D.bool_
    if isinstance(data, (np.ndarray, np.generic)):
        return _np_dtype(data.dtype)
    if isinstance(data, int):
        return D.int64
    if isinstance(data, float):
        return D.get_default_dtype()
    if isinstance(data, complex):
        return default_complex()
    if isinstance(data, Tensor):
        return data._dtype
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{_tp(data)}'")
    if _is_seq(data):
        if isinstance(data, (list, tuple)):
            kinds = set(map(type, data))
            if kinds and kinds <= _PLAIN:  # fast path: a sequence of Python numbers
                return default_complex() if complex in kinds else D.get_default_dtype() if float in kinds \
                    else D.int64 if int in kinds else D.bool_
        out = None
        for v in data:
            out = infer_dtype(v) if out is None else promote_types(out, infer_dtype(v))
            if out is D.complex128:
                break
        return D.get_default_dtype() if out is None else out
    raise RuntimeError(f"Could not infer dtype of {_tp(data)}")


def _compute_sizes(data):
    sizes, x = [], data
    while _is_seq(x):
        if isinstance(x, (str, bytes)):
            raise ValueError(f"too many dimensions '{_tp(x)}'")
        sizes.append(len(x))
        if not sizes[-1]:
            break
        x = x[0]
    return tuple(sizes)


def _flatten(x, sizes, dim, leaves):
    """Walk `x` like PyTorch's recursive_store: check every length, collect the leaves in order."""
    if dim == len(sizes):
        leaves.append(x)
        return
    if isinstance(x, (list, tuple)):
        seq = x
    else:
        try:
            seq = list(x)
        except TypeError:
            raise TypeError("not a sequence") from None
    if len(seq) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})")
    if dim + 1 == len(sizes):
        leaves.extend(seq)
    else:
        for v in seq:
            _flatten(v, sizes, dim + 1, leaves)


def _real(v):
    """PyFloat_AsDouble."""
    if isinstance(v, float):
        return v
    if isinstance(v, Tensor) and v.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    if isinstance(v, (str, bytes)) or not (hasattr(type(v), "__float__") or hasattr(type(v), "__index__")):
        raise TypeError(f"must be real number, not {_tp(v)}")
    return float(v)


def _cplx(v):
    if isinstance(v, complex):
        return v
    if isinstance(v, Tensor) and v.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return complex(v) if hasattr(type(v), "__complex__") else complex(_real(v))


def _int(v, d):
    """THPUtils_unpackLong / checked conversion of a double: a Python int."""
    if isinstance(v, float):
        info = np.iinfo(d.np)
        if not math.isfinite(v) or v < info.min or v > info.max:
            raise RuntimeError(f"value cannot be converted to type {d.name} without overflow")
        return int(v)
    return operator.index(v)


def _leaves_array(leaves, d):
    """The leaves (Python/numpy numbers, one-element tensors) as a numpy array of `d`, converted like
    PyTorch's store_scalar (checked for integer dtypes, unchecked for floating ones)."""
    kinds = set(map(type, leaves))
    plain = kinds <= {bool, int, float}
    with np.errstate(over="ignore", invalid="ignore"):
        if d.is_floating_point:
            return np.array(leaves if plain else [_real(v) for v in leaves], np.float64).astype(d.np)
        if d.is_complex:
            return np.array([_cplx(v) for v in leaves], np.complex128).astype(d.np)
    if d is D.bool_:
        return np.array(
            [
                bool(v) if isinstance(v, (float, complex, np.bool_)) else bool(operator.index(v))
                for v in leaves
            ],
            np.bool_,
        )
    ints = leaves if plain and float not in kinds else [_int(v, d) for v in leaves]
    if not ints:
        return np.zeros(0, d.np)
    lo, hi = min(ints), max(ints)
    if d is not D.uint64 and (lo < -(2**63) or hi >= 2**63) or lo < -(2**63) or hi >= 2**64:
        raise ValueError("Overflow when unpacking long long")
    info = np.iinfo(d.np)
    if hi > info.max or (lo < -int(info.max) if info.min == 0 else lo < info.min):
        raise RuntimeError(f"value cannot be converted to type {d.name} without overflow")
    if d is D.uint64:
        return np.array([v % 2**64 for v in ints], np.uint64)
    return np.array(ints, np.int64).astype(d.np)


def _traced_leaves(leaves, d):
    """Leaves containing traced tensors: stack them in jax (no host round-trip)."""
    parts = []
    for v in leaves:
        if not isinstance(v, Tensor):
            parts.append(jnp.asarray(_leaves_array([v], d)[0]))
            continue
        if d.is_floating_point or d.is_complex:
            if v.numel() != 1:
                raise ValueError("only one element tensors can be converted to Python scalars")
        elif v.numel() != 1 or v._dtype.is_floating_point or v._dtype.is_complex:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        parts.append(v._value.reshape(()).astype(d.np))
    return jnp.stack(parts)


def _data_array(data, dtype, alias=False):
    """(numpy or jax array, torch dtype, strides or None) of torch.tensor-style `data`; `dtype` wins, else it
    is inferred. Tensors and numpy arrays keep their layout: exactly (`alias`: as_tensor/asarray/from_numpy
    without a dtype change) or as a preserve_format copy."""
    if isinstance(data, Tensor):
        d = dtype or data._dtype
        return cast(data._value, d), d, _preserve_strides(data._shape, data._stride)
    if isinstance(data, jax.Array):
        d = dtype or _np_dtype(data.dtype)
        return cast(data, d), d, None
    if isinstance(data, np.ndarray):
        arr, d0, st = _from_ndarray(data)
        d = dtype or d0
        return cast(arr, d), d, st if alias and d is d0 or st is None else _preserve_strides(arr.shape, st)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{_tp(data)}'")
    sizes = _compute_sizes(data)
    d = dtype if dtype is not None else infer_dtype(data)
    leaves = []
    _flatten(data, sizes, 0, leaves)
    if any(issubclass(k, Tensor) for k in set(map(type, leaves))) and \
            any(isinstance(v, Tensor) and isinstance(v._value, jax.core.Tracer) for v in leaves):
        return _traced_leaves(leaves, d).reshape(sizes), d, None
    return _leaves_array(leaves, d).reshape(sizes), d, None


def _convert(t, dtype, device):
    """`t.to(device, dtype, copy=True)` with PyTorch's CPU conversions (autograd-tracked when it matters)."""
    d = dtype or t._dtype
    dev = device or t.device
    if t.requires_grad and (d.is_floating_point or d.is_complex):
        return t.to(device=dev, dtype=d, copy=True)
    return finish(cast(t._value, d), d, dev, stride=_preserve_strides(t._shape, t._stride))


@register("tensor", method=False, kind="creation")
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """`torch.tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False)`: always copies.

    dtype inference as PyTorch: bools -> bool, ints -> int64, floats -> default dtype, complex -> default
    complex, promoted over nested sequences; numpy arrays and scalars keep their dtype."""
    if isinstance(data, Tensor):
        warnings.warn(_COPY_WARNING.format("torch.tensor"), UserWarning, stacklevel=2)
    arr, d, st = _data_array(data, dtype)
    dev = Dev.canonical(device if device is not None or not isinstance(data, Tensor) else data.device)
    return finish(arr, d, dev, requires_grad, st)


@register("as_tensor", method=False, kind="creation")
def as_tensor(data, *, dtype=None, device=None):
    """`torch.as_tensor(data, *, dtype=None, device=None)`: returns `data` itself when it is a Tensor of the
    right dtype and device. Difference: numpy arrays are copied (jax arrays are immutable)."""
    if isinstance(data, Tensor):
        dev = None if device is None else Dev.canonical(device)
        same = (dtype is None or dtype is data._dtype) and (dev is None or dev == data.device)
        return data if same else _convert(data, dtype, dev)
    arr, d, st = _data_array(data, dtype, alias=True)
    return finish(arr, d, Dev.canonical(device), stride=st)


@register("asarray", method=False, kind="creation")
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """`torch.asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None)`: aliases a Tensor when
    it can (copy=None) or must (copy=False). Difference: numpy arrays are always copied."""
    t = None
    if isinstance(obj, Tensor):
        t = obj
    elif isinstance(obj, (np.ndarray, np.generic)):
        if isinstance(obj, np.generic) and copy is False:
            raise RuntimeError(
                "can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray. "
            )
        arr, d0, st = _from_ndarray(np.asarray(obj))
        t = finish(arr, d0, Dev.CPU, stride=st)
    if t is None:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        arr, d, _ = _data_array(obj, dtype)
        return finish(arr, d, Dev.canonical(device), bool(requires_grad))
    dev = None if device is None else Dev.canonical(device)
    wrong_dtype = dtype is not None and dtype is not t._dtype
    wrong_device = dev is not None and dev != t.device
    if copy or (copy is None and (wrong_dtype or wrong_device)):
        t = _convert(t, dtype, dev) if (wrong_dtype or wrong_device) else t.clone()
    elif wrong_device:
        raise ValueError(f"can't alias tensor from device '{t.device}' to '{dev}'.")
    elif wrong_dtype:
        raise ValueError(
            f"can't alias tensor with dtype '{short_name(t._dtype)}' into dtype '{short_name(dtype)}'."
        )
    if requires_grad is None:
        if t.requires_grad:
            warn_once(
                "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
                "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
                "warning.",
                UserWarning,
                stacklevel=2,
            )
    elif requires_grad != t.requires_grad:
        t = t if t.is_leaf else t.detach()
        t.requires_grad_(requires_grad)
    return t


@register("from_numpy", method=False, kind="creation")
def from_numpy(ndarray):
    """`torch.from_numpy(ndarray)`. Difference: the tensor holds a copy; later writes to the numpy array are
    not seen (jax arrays are immutable)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {_tp(ndarray)})")
    arr, d, st = _from_ndarray(ndarray)
    return finish(arr, d, Dev.CPU, stride=st)


@register("new_tensor", function=False, kind="creation")
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """`Tensor.new_tensor(data, *, dtype=None, device=None, requires_grad=False)`: dtype/device of self."""
    if isinstance(data, Tensor):
        warnings.warn(_COPY_WARNING.format("tensor.new_tensor"), UserWarning, stacklevel=2)
    arr, d, st = _data_array(data, dtype or self._dtype)
    dev = Dev.canonical(device if device is not None else self.device)
    return finish(arr, d, dev, requires_grad, st)
