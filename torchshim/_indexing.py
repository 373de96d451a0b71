"""`Tensor.__getitem__` / `__setitem__` with PyTorch's semantics.

Basic indices (ints, slices, None, Ellipsis, 0-dim integer tensors) only change the view geometry, so
`x[1:, 0]` is a view and `x[1:, 0] = v` writes through it. Advanced indices (integer/bool tensors, lists,
numpy arrays) are then applied to that view with one jitted gather or scatter. Out-of-range indices raise
IndexError with PyTorch's message (JAX would clamp); this check needs concrete indices and is skipped under jax
tracing, where negative indices are still wrapped.
"""
import numbers
import warnings
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtype as D
from ._tensor import Tensor

__all__ = ["getitem", "setitem"]


class _Adv:
    """An advanced index: an integer array (jax or numpy) applied at some dim of the basic view."""

    __slots__ = ("array", "dim", "order")

    def __init__(self, array, dim, order):
        self.array, self.dim, self.order = array, dim, order


def _as_index_tensor(obj):
    if isinstance(obj, Tensor):
        return obj
    from .ops.creation import tensor
    if isinstance(obj, np.ndarray):
        return tensor(obj)
    if isinstance(obj, (list, tuple)):
        try:
            return tensor(obj)
        except (TypeError, ValueError):
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             "valid indices") from None
    raise IndexError(_bad_index_msg(obj))


def _bad_index_msg(obj):
    return ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
            f"(got {type(obj).__name__})")


def _normalise(index):
    """The index as a tuple, with PyTorch's rule for lists that are treated as tuples."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and any(isinstance(v, (list, tuple, slice, Tensor, np.ndarray)) or v is None
                                       or v is Ellipsis for v in index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
                      "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
                      "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
                      "a different result", UserWarning, stacklevel=3)
        return tuple(index)
    return (index,)


def _consumed(item):
    if item is None or item is Ellipsis or isinstance(item, bool):
        return 0
    if isinstance(item, Tensor) and item._dtype in (D.bool_, D.uint8):
        return max(item.ndim, 1) if item.ndim else 0
    return 1


def _parse(self, index):
    """Apply the basic part of `index` to self's geometry; return (view, [advanced indices])."""
    items = _normalise(index)
    items = tuple(_as_index_tensor(i) if isinstance(i, (list, np.ndarray)) else i for i in items)
    n_ell = sum(1 for i in items if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_consumed(i) for i in items)
    nd = len(self._shape)
    if used > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    shape, stride, offset = [], [], self._offset
    advs = []
    src = 0  # dim of self being consumed
    for item in items:
        if item is Ellipsis:
            for _ in range(nd - used):
                shape.append(self._shape[src])
                stride.append(self._stride[src])
                src += 1
        elif item is None or item is True:
            shape.append(1)
            stride.append(_unsq_stride(self, src))
        elif item is False:
            shape.append(0)
            stride.append(_unsq_stride(self, src))
        elif isinstance(item, slice):
            size, st = self._shape[src], self._stride[src]
            step = 1 if item.step is None else _int(item.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step < 0:
                raise ValueError("step must be greater than zero")
            start, stop, _ = slice(_int_or_none(item.start), _int_or_none(item.stop), step).indices(size)
            length = max(0, -(-(stop - start) // step))
            offset += start * st if length else 0
            shape.append(length)
            stride.append(st * step)
            src += 1
        elif isinstance(item, numbers.Integral) or (isinstance(item, Tensor) and item.ndim == 0
                                                     and item._dtype not in (D.bool_, D.uint8)
                                                     and not item._dtype.is_floating_point
                                                     and not item._dtype.is_complex
                                                     and not isinstance(item._value, jax.core.Tracer)):
            i = int(item)
            size = self._shape[src]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {src} with size {size}")
            offset += (i + size if i < 0 else i) * self._stride[src]
            src += 1
        elif isinstance(item, Tensor):
            d = item._dtype
            if d in (D.bool_, D.uint8):
                if d is D.uint8:
                    warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                                  "torch.bool instead.", UserWarning, stacklevel=3)
                k = item.ndim
                if k == 0:
                    # x[True-tensor] adds a dim of 1; x[False-tensor] a dim of 0
                    shape.append(1)
                    stride.append(_unsq_stride(self, src))
                    advs.append(("mask0", item, len(shape) - 1))
                    continue
                for j in range(k):
                    if item._shape[j] != self._shape[src + j]:
                        raise IndexError(f"The shape of the mask {list(item._shape)} at index {j} does not match "
                                         f"the shape of the indexed tensor {list(self._shape)} at index {src + j}")
                first = len(shape)
                for j in range(k):
                    shape.append(self._shape[src + j])
                    stride.append(self._stride[src + j])
                advs.append(("mask", item, first))
                src += k
            elif d.is_floating_point or d.is_complex:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            else:
                shape.append(self._shape[src])
                stride.append(self._stride[src])
                advs.append(("int", item, len(shape) - 1))
                src += 1
        else:
            raise IndexError(_bad_index_msg(item))
    shape.extend(self._shape[src:])
    stride.extend(self._stride[src:])
    view = self._as_view(shape, stride, offset)
    return view, _expand_masks(view, advs)


def _unsq_stride(self, src):
    return self._shape[src] * self._stride[src] if src < len(self._shape) else 1


def _int(x):
    return x.__index__()


def _int_or_none(x):
    return None if x is None else x.__index__()


def _expand_masks(view, advs):
    """Turn every index into `_Adv`s of integer arrays; bool masks become their nonzero coordinates."""
    out = []
    for kind, t, dim in advs:
        if kind == "int":
            out.append(_Adv(t._value, dim, len(out)))
        elif kind == "mask0":
            arr = jnp.zeros((1 if bool(t.item()) else 0,), jnp.int64)
            out.append(_Adv(arr, dim, len(out)))
        else:
            m = t._value
            if isinstance(m, jax.core.Tracer):
                raise RuntimeError("indexing with a boolean mask gives a data-dependent shape and cannot run under "
                                   "jax tracing; use torch.where or masked_fill instead")
            coords = np.nonzero(np.asarray(m))
            for j, c in enumerate(coords):
                out.append(_Adv(c.astype(np.int64), dim + j, len(out)))
    return out


def _check_bounds(view, advs):
    """IndexError for out-of-range integer indices (concrete arrays only); broadcast-compatibility check."""
    shapes = []
    for a in advs:
        shapes.append(tuple(np.shape(a.array)))
        if isinstance(a.array, jax.core.Tracer):
            continue
        arr = np.asarray(a.array)
        if arr.size == 0:
            continue
        size = view._shape[a.dim]
        bad = (arr >= size) | (arr < -size)
        if bad.any():
            raise IndexError(f"index {arr[bad].flat[0]} is out of bounds for dimension {a.order} with size {size}")
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(str(list(s)) for s in shapes)) from None


@partial(jax.jit, static_argnames=("dims", "sizes", "ndim"))
def _gather(value, arrays, dims, sizes, ndim):
    idx = [slice(None)] * ndim
    for arr, d, n in zip(arrays, dims, sizes):
        arr = jnp.asarray(arr)
        idx[d] = jnp.where(arr < 0, arr + n, arr)
    return value[tuple(idx)]


@partial(jax.jit, static_argnames=("dims", "sizes", "ndim"))
def _scatter(value, arrays, new, dims, sizes, ndim):
    idx = [slice(None)] * ndim
    for arr, d, n in zip(arrays, dims, sizes):
        arr = jnp.asarray(arr)
        idx[d] = jnp.where(arr < 0, arr + n, arr)
    return value.at[tuple(idx)].set(new.astype(value.dtype))


def _adv_args(view, advs):
    dims = tuple(a.dim for a in advs)
    return tuple(a.array for a in advs), dims, tuple(view._shape[d] for d in dims), len(view._shape)


def getitem(self, index):
    """`x[index]`: a view for basic indices, a new tensor when any advanced index is present."""
    view, advs = _parse(self, index)
    if not advs:
        return view
    _check_bounds(view, advs)
    arrays, dims, sizes, nd = _adv_args(view, advs)
    from .ops._dispatch import fresh
    return fresh(_gather(view._value, arrays, dims=dims, sizes=sizes, ndim=nd), self._dtype,
                 self._storage.device)


def _value_of(value, dtype, device):
    if isinstance(value, Tensor):
        v = value._value
        if value._storage.device is not device and value.ndim:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{device} and {value.device}!")
    elif isinstance(value, numbers.Number):
        return jnp.asarray(value).astype(dtype.np)
    else:
        from .ops.creation import tensor
        v = tensor(value)._value
    return v.astype(dtype.np) if v.dtype != dtype.np else v


def _strip_leading_ones(v, ndim):
    shape = tuple(v.shape)
    while len(shape) > ndim and shape[0] == 1:
        shape = shape[1:]
    return v.reshape(shape) if shape != tuple(v.shape) else v


def setitem(self, index, value):
    """`x[index] = value`: value (number or tensor) is cast to x's dtype and broadcast; aliases see the write."""
    view, advs = _parse(self, index)
    v = _value_of(value, self._dtype, self._storage.device)
    if not advs:
        v = _strip_leading_ones(v, view.ndim)
        _check_expand(tuple(v.shape), view._shape, self._dtype)
        view._write(v)
        return
    _check_bounds(view, advs)
    arrays, dims, sizes, nd = _adv_args(view, advs)
    target = jax.eval_shape(lambda x, a: _gather(x, a, dims=dims, sizes=sizes, ndim=nd),
                            jax.ShapeDtypeStruct(view._shape, view._value.dtype), arrays).shape
    v = _strip_leading_ones(v, len(target))
    try:
        np.broadcast_shapes(tuple(v.shape), tuple(target))
        if np.broadcast_shapes(tuple(v.shape), tuple(target)) != tuple(target):
            raise ValueError
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(v.shape)} cannot be broadcast to indexing "
                           f"result of shape {list(target)}") from None
    view._write(_scatter(view._value, arrays, v, dims=dims, sizes=sizes, ndim=nd))


def _check_expand(src, target, dtype):
    """PyTorch's expand error when a value of shape `src` can't fill `target`."""
    if len(src) > len(target):
        from ._legacy import legacy_type_name
        from . import _device as Dev
        raise RuntimeError(f"expand({legacy_type_name(dtype, Dev.CPU)}{{{list(src)}}}, size={list(target)}): "
                           f"the number of sizes provided ({len(target)}) must be greater or equal to the number "
                           f"of dimensions in the tensor ({len(src)})")
    for i in range(1, len(src) + 1):
        if src[-i] != 1 and src[-i] != target[-i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[-i]}) must match the existing size "
                               f"({src[-i]}) at non-singleton dimension {len(target) - i}.  Target sizes: "
                               f"{list(target)}.  Tensor sizes: {list(src)}")


Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem
